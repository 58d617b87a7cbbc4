//! Limits of one realtime node.

use std::time::Duration;

/// Settings of [`crate::RealtimeState`]. Every limit is per node and
/// enforced; `Default` gives the values the server uses unless configured.
#[derive(Debug, Clone)]
pub struct RealtimeConfig {
    /// Open websockets this node accepts at once; the next upgrade is
    /// refused with 429 `Too many connected users` (a semaphore, so a slow
    /// flood cannot exhaust the node's memory or file descriptors).
    pub max_connections: usize,
    /// Open websockets one client address may have at once (the peer, or
    /// the first `X-Forwarded-For` entry behind a trusted proxy); the next
    /// upgrade is refused with 429 `Too many connections from this address`.
    pub max_connections_per_ip: usize,
    /// Open websockets one user (the token's `sub`) may have at once, from
    /// any address; the next upgrade is refused with 429 `Too many
    /// connections for this user`.
    pub max_connections_per_user: usize,
    /// Channels one socket may have joined at once; a further `phx_join` is
    /// answered with the platform's error reply `ChannelRateLimitReached:
    /// Too many channels`.
    pub max_channels_per_connection: usize,
    /// Largest broadcast or presence message a client may send, in bytes
    /// (the whole text or binary frame), and largest body of the HTTP
    /// broadcast endpoint: the platform's `max_payload_size_in_kb`. Past it,
    /// as on the platform, a broadcast is dropped (a sender that asked for
    /// acks gets the error reply `payload_size_exceeded`) and a presence
    /// track closes its channel with `Track message size exceeded`; the
    /// socket stays open.
    pub max_message_size: usize,
    /// Largest websocket message read at all, in bytes (at least
    /// `max_message_size`); a larger one closes the socket with close code
    /// 1009 (message too big), as the platform's 5 MB frame limit does. It
    /// is lower than the platform's by default: a socket's read buffer grows
    /// to the largest message it was sent.
    pub max_frame_size: usize,
    /// Messages a socket may send per second (heartbeats excepted). Beyond
    /// that, messages are dropped and pushes carrying a ref get the error
    /// reply `Too many messages per second`.
    pub max_events_per_second: u32,
    /// Joins a socket may make per second; past it the join is answered
    /// `ClientJoinRateLimitReached: Too many joins per second` and the
    /// socket is closed, as the platform closes it.
    pub max_joins_per_second: u32,
    /// Presence tracks and untracks a socket may make per second; past it
    /// the channel is closed with `Client presence rate limit exceeded`.
    pub max_presence_events_per_second: u32,
    /// Presence keys one topic may hold, across nodes; a further track is
    /// answered `PresenceMembersLimitReached: Too many presence members in
    /// this channel`.
    pub max_presence_members: usize,
    /// How long a socket may stay silent before it is closed (realtime-js
    /// sends a heartbeat every 25 s, so the default leaves room for one
    /// lost heartbeat).
    pub heartbeat_timeout: Duration,
    /// Only private channels may be joined (the platform's "allow public
    /// access" switched off); a public join is answered `This project only
    /// allows private channels`.
    pub private_only: bool,
}

impl RealtimeConfig {
    /// The websocket reader's limit: `max_frame_size`, and never below
    /// `max_message_size`.
    pub(crate) fn frame_limit(&self) -> usize {
        self.max_frame_size.max(self.max_message_size)
    }
}

impl Default for RealtimeConfig {
    fn default() -> Self {
        Self {
            max_connections: 10_000,
            max_connections_per_ip: 200,
            max_connections_per_user: 50,
            max_channels_per_connection: 100,
            max_message_size: 256 * 1024,
            max_frame_size: 512 * 1024,
            max_events_per_second: 100,
            max_joins_per_second: 100,
            max_presence_events_per_second: 10,
            max_presence_members: 1000,
            heartbeat_timeout: Duration::from_secs(60),
            private_only: false,
        }
    }
}
