// Realtime authorization through the unmodified supabase-js: channels joined
// with `config: { private: true }` get only what the row-level-security
// policies on `realtime.messages` allow for their topic (`realtime.topic()`):
// select to receive broadcasts and presence, insert to send and track.
// Broadcast from SQL (`realtime.send`), over HTTP, and a token refresh that
// loses the read.
import { createHmac, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js'
import {
  anonClient,
  anonKey,
  browserClient,
  jwtSecret,
  plinthUrl,
  serviceRoleKey,
  sql,
  uniqueEmail,
} from './support/context'
import { subscribed, waitFor } from './support/realtime'

const clients: SupabaseClient[] = []
function keep<T extends SupabaseClient>(client: T): T {
  clients.push(client)
  return client
}

afterAll(async () => {
  for (const client of clients) await client.removeAllChannels()
})

beforeAll(async () => {
  // The README's example: members read a room, writers may also send and track.
  await sql(`
    create table if not exists public.rt_room_members (
      room text not null, user_id uuid not null, writer boolean not null default false,
      primary key (room, user_id));
    grant select on public.rt_room_members to authenticated;
    drop policy if exists "rt private: members read" on realtime.messages;
    create policy "rt private: members read" on realtime.messages for select to authenticated
      using (exists (select 1 from public.rt_room_members m
                     where m.room = realtime.topic() and m.user_id = auth.uid()));
    drop policy if exists "rt private: writers write" on realtime.messages;
    create policy "rt private: writers write" on realtime.messages for insert to authenticated
      with check (exists (select 1 from public.rt_room_members m
                          where m.room = realtime.topic() and m.user_id = auth.uid() and m.writer));
  `)
})

interface Member {
  client: SupabaseClient
  id: string
}

/** A confirmed user, signed in with a password, its token on the realtime socket. */
async function signedIn(tag: string): Promise<Member> {
  const client = keep(browserClient())
  const email = uniqueEmail(tag)
  await client.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await client.auth.signInWithPassword({ email, password: 'a-good-password' })
  if (error) throw error
  client.realtime.setAuth(data.session!.access_token)
  return { client, id: data.user!.id }
}

/** Makes `user` a member of `room` (a writer or a reader only). */
async function admit(room: string, user: Member, writer: boolean): Promise<void> {
  await sql('insert into public.rt_room_members (room, user_id, writer) values ($1, $2, $3)', [room, user.id, writer])
}

/** A new access token for `sub`, as a token refresh hands one over (HS256, the project's secret). */
function accessToken(sub: string, ttlSeconds = 3600): string {
  const now = Math.floor(Date.now() / 1000)
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const claims = { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + ttlSeconds, jti: randomUUID() }
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${body}.${createHmac('sha256', jwtSecret).update(body).digest('base64url')}`
}

/** A topic no other test uses. */
function uniqueRoom(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}

/** The first answer to a join: its status and, for an error, the error. */
function joinOutcome(channel: RealtimeChannel): Promise<{ status: string; error?: Error }> {
  return new Promise((ok) => {
    let settled = false
    channel.subscribe((status, error) => {
      if (settled) return
      settled = true
      ok({ status, error })
    })
  })
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms))

/** Collects the payloads of `event` broadcasts reaching `channel` (call before subscribing). */
function collect(channel: RealtimeChannel, event = '*'): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = []
  channel.on('broadcast', { event }, (message) => void seen.push({ event: message.event, ...message.payload }))
  return seen
}

describe('private channels: broadcast', () => {
  it("a writer's broadcast reaches another member, and never a public channel of the same name", async () => {
    const room = uniqueRoom('private-room')
    const writer = await signedIn('rtp-writer')
    const reader = await signedIn('rtp-reader')
    await admit(room, writer, true)
    await admit(room, reader, false)

    const toWriter = writer.client.channel(room, { config: { private: true } })
    const toReader = reader.client.channel(room, { config: { private: true } })
    const heardByReader = collect(toReader, 'note')
    // A public channel of the same name, from a client of its own (one
    // client keeps one channel per name).
    const outsider = keep(anonClient())
    const publicChannel = outsider.channel(room)
    const heardInPublic = collect(publicChannel)
    await subscribed(toWriter)
    await subscribed(toReader)
    await subscribed(publicChannel)

    expect(await toWriter.send({ type: 'broadcast', event: 'note', payload: { text: 'for members' } })).toBe('ok')
    await waitFor(() => (heardByReader.length ? true : undefined))
    expect(heardByReader).toEqual([{ event: 'note', text: 'for members' }])

    // And the other way: a public broadcast of that name is not the private channel's.
    expect(await publicChannel.send({ type: 'broadcast', event: 'note', payload: { text: 'public' } })).toBe('ok')
    expect(await toWriter.send({ type: 'broadcast', event: 'note', payload: { text: 'second' } })).toBe('ok')
    await waitFor(() => (heardByReader.length === 2 ? true : undefined))
    await pause(500)
    expect(heardByReader).toEqual([
      { event: 'note', text: 'for members' },
      { event: 'note', text: 'second' },
    ])
    expect(heardInPublic).toEqual([])
  })

  it("refuses a non-member's join with the reason", async () => {
    const room = uniqueRoom('private-closed')
    const stranger = await signedIn('rtp-stranger')
    const channel = stranger.client.channel(room, { config: { private: true } })
    const outcome = await joinOutcome(channel)
    await stranger.client.removeChannel(channel)
    expect(outcome.status).toBe('CHANNEL_ERROR')
    expect(outcome.error?.message).toBe(`Unauthorized: You do not have permissions to read from this Channel topic: ${room}`)
  })

  it('refuses an anonymous client (anon key only)', async () => {
    const room = uniqueRoom('private-anon')
    // Members exist: the room is readable, just not by anon.
    const member = await signedIn('rtp-member')
    await admit(room, member, true)
    const guest = keep(anonClient())
    const channel = guest.channel(room, { config: { private: true } })
    const outcome = await joinOutcome(channel)
    await guest.removeChannel(channel)
    expect(outcome.status).toBe('CHANNEL_ERROR')
    expect(outcome.error?.message).toBe(`Unauthorized: You do not have permissions to read from this Channel topic: ${room}`)

    // The member's own join of that room is fine.
    const own = member.client.channel(room, { config: { private: true } })
    await expect(subscribed(own)).resolves.toBeUndefined()
  })

  it("drops a reader-only member's broadcast", async () => {
    const room = uniqueRoom('private-readonly')
    const writer = await signedIn('rtp-writer')
    const reader = await signedIn('rtp-reader')
    const other = await signedIn('rtp-other')
    await admit(room, writer, true)
    await admit(room, reader, false)
    await admit(room, other, false)

    const fromReader = reader.client.channel(room, { config: { private: true } })
    const fromWriter = writer.client.channel(room, { config: { private: true } })
    const heardByWriter = collect(fromWriter)
    const listener = other.client.channel(room, { config: { private: true } })
    const heardByOther = collect(listener)
    await subscribed(fromReader)
    await subscribed(fromWriter)
    await subscribed(listener)

    await fromReader.send({ type: 'broadcast', event: 'forbidden', payload: { text: 'from a reader' } })
    await pause(700)
    // A writer's message after it: once it is here, the reader's would have been too.
    await fromWriter.send({ type: 'broadcast', event: 'allowed', payload: { text: 'from a writer' } })
    await waitFor(() => (heardByOther.length ? true : undefined))
    await pause(300)
    expect(heardByOther).toEqual([{ event: 'allowed', text: 'from a writer' }])
    expect(heardByWriter).toEqual([])
  })
})

describe('private channels: presence', () => {
  it("a reader sees a writer's presence; a reader's track is refused and seen by no one", async () => {
    const room = uniqueRoom('private-presence')
    const writer = await signedIn('rtp-writer')
    const reader = await signedIn('rtp-reader')
    await admit(room, writer, true)
    await admit(room, reader, false)

    const onWriter = writer.client.channel(room, { config: { private: true, presence: { key: 'writer' } } })
    const onReader = reader.client.channel(room, { config: { private: true, presence: { key: 'reader' } } })
    const joinsSeenByReader: { key: string; newPresences: Record<string, unknown>[] }[] = []
    let readerSynced: string[] = []
    let writerSynced: string[] = []
    onReader
      .on('presence', { event: 'join' }, ({ key, newPresences }) => void joinsSeenByReader.push({ key, newPresences }))
      .on('presence', { event: 'sync' }, () => {
        readerSynced = Object.keys(onReader.presenceState()).sort()
      })
    onWriter.on('presence', { event: 'sync' }, () => {
      writerSynced = Object.keys(onWriter.presenceState()).sort()
    })
    await subscribed(onWriter)
    await subscribed(onReader)

    expect(await onWriter.track({ name: 'the writer', status: 'online' })).toBe('ok')
    await waitFor(() => (readerSynced.join() === 'writer' ? true : undefined))
    const seen = onReader.presenceState()['writer'] as unknown as { name: string; status: string }[]
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ name: 'the writer', status: 'online' })
    const join = joinsSeenByReader.find((j) => j.key === 'writer')
    expect(join?.newPresences[0]).toMatchObject({ name: 'the writer', status: 'online' })

    // The reader may not track: answered with an error, and nobody sees it.
    expect(await onReader.track({ name: 'the reader' })).toBe('error')
    await pause(700)
    expect(writerSynced).toEqual(['writer'])
    expect(Object.keys(onWriter.presenceState())).toEqual(['writer'])
    expect(joinsSeenByReader.map((j) => j.key)).toEqual(['writer'])
  })
})

describe('realtime.send from SQL', () => {
  it("reaches a private channel's subscribers, with an id added to the payload", async () => {
    const room = uniqueRoom('sql-private')
    const member = await signedIn('rtp-member')
    await admit(room, member, false)
    const channel = member.client.channel(room, { config: { private: true } })
    const heard = collect(channel, 'from-sql')
    const outsider = keep(anonClient())
    const publicChannel = outsider.channel(room)
    const heardInPublic = collect(publicChannel)
    await subscribed(channel)
    await subscribed(publicChannel)

    await sql(`select realtime.send($1::jsonb, 'from-sql', $2)`, [JSON.stringify({ text: 'hello', n: 1 }), room])
    await waitFor(() => (heard.length ? true : undefined))
    expect(heard).toHaveLength(1)
    const { id, ...rest } = heard[0]
    expect(rest).toEqual({ event: 'from-sql', text: 'hello', n: 1 })
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    await pause(300)
    expect(heardInPublic).toEqual([])
  })

  it('with private = false reaches only a public channel of that name', async () => {
    const room = uniqueRoom('sql-public')
    const member = await signedIn('rtp-member')
    await admit(room, member, false)
    const privateChannel = member.client.channel(room, { config: { private: true } })
    const heardPrivately = collect(privateChannel)
    const outsider = keep(anonClient())
    const publicChannel = outsider.channel(room)
    const heardInPublic = collect(publicChannel)
    await subscribed(privateChannel)
    await subscribed(publicChannel)

    await sql(`select realtime.send($1::jsonb, 'to-public', $2, false)`, [JSON.stringify({ text: 'for everyone' }), room])
    // Committed after it: a private one, so that both channels hear something.
    await sql(`select realtime.send($1::jsonb, 'to-private', $2, true)`, [JSON.stringify({ text: 'for members' }), room])
    await waitFor(() => (heardInPublic.length && heardPrivately.length ? true : undefined))
    await pause(300)
    expect(heardInPublic.map(({ id: _id, ...rest }) => rest)).toEqual([{ event: 'to-public', text: 'for everyone' }])
    expect(heardPrivately.map(({ id: _id, ...rest }) => rest)).toEqual([{ event: 'to-private', text: 'for members' }])
  })
})

describe('private channels: broadcast over HTTP', () => {
  it("delivers a writer's httpSend and refuses a reader's", async () => {
    const room = uniqueRoom('http-private')
    const writer = await signedIn('rtp-writer')
    const reader = await signedIn('rtp-reader')
    const listener = await signedIn('rtp-listener')
    await admit(room, writer, true)
    await admit(room, reader, false)
    await admit(room, listener, false)
    const channel = listener.client.channel(room, { config: { private: true } })
    const heard = collect(channel)
    await subscribed(channel)

    // Neither sender joins: their channels only carry the name and `private`.
    const readerSide = reader.client.channel(room, { config: { private: true } })
    // One message is refused out loud (403 Unauthorized, as the platform)...
    await expect(readerSide.httpSend('by-reader', { text: 'not allowed' })).rejects.toThrow('Unauthorized')
    // ...while a batch drops it: `send` on a channel that is not joined falls
    // back to POST /api/broadcast with `private: true`.
    expect(await readerSide.send({ type: 'broadcast', event: 'by-reader-rest', payload: { text: 'not allowed' } })).toBe('ok')
    await pause(500)
    const writerSide = writer.client.channel(room, { config: { private: true } })
    expect(await writerSide.httpSend('by-writer', { text: 'allowed' })).toEqual({ success: true })
    expect(await writerSide.send({ type: 'broadcast', event: 'by-writer-rest', payload: { text: 'allowed too' } })).toBe('ok')
    await waitFor(() => (heard.length === 2 ? true : undefined))
    await pause(300)
    expect(heard.map((m) => m.event).sort()).toEqual(['by-writer', 'by-writer-rest'])
    await reader.client.removeChannel(readerSide)
    await writer.client.removeChannel(writerSide)
  })

  it('POST /realtime/v1/api/broadcast with private: true: the anon key is dropped, the service role delivers', async () => {
    const room = uniqueRoom('http-api')
    const member = await signedIn('rtp-member')
    await admit(room, member, false)
    const channel = member.client.channel(room, { config: { private: true } })
    const heard = collect(channel)
    await subscribed(channel)

    const post = (key: string, event: string) =>
      fetch(`${plinthUrl}/realtime/v1/api/broadcast`, {
        method: 'POST',
        headers: { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ topic: room, event, payload: { by: event }, private: true }] }),
      })
    expect((await post(anonKey, 'by-anon')).status).toBe(202)
    await pause(500)
    expect((await post(serviceRoleKey, 'by-service')).status).toBe(202)
    await waitFor(() => (heard.length ? true : undefined))
    await pause(300)
    expect(heard).toEqual([{ event: 'by-service', by: 'by-service' }])
  })
})

describe('private channels: token refresh', () => {
  it('a refreshed token that lost the read closes the channel with the reason', async () => {
    const room = uniqueRoom('private-refresh')
    const writer = await signedIn('rtp-writer')
    const member = await signedIn('rtp-member')
    await admit(room, writer, true)
    await admit(room, member, false)

    const fromWriter = writer.client.channel(room, { config: { private: true } })
    const channel = member.client.channel(room, { config: { private: true } })
    const heard = collect(channel, 'note')
    const system: Record<string, unknown>[] = []
    channel.on('system', {}, (payload: Record<string, unknown>) => void system.push(payload))
    const statuses: string[] = []
    const joined = new Promise<void>((ok, fail) => {
      channel.subscribe((status, error) => {
        statuses.push(status)
        if (status === 'SUBSCRIBED') ok()
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') fail(error ?? new Error(status))
      })
    })
    await subscribed(fromWriter)
    await joined

    // A refresh while still a member changes nothing.
    await member.client.realtime.setAuth(accessToken(member.id))
    await pause(500)
    await fromWriter.send({ type: 'broadcast', event: 'note', payload: { n: 1 } })
    await waitFor(() => (heard.length === 1 ? true : undefined))
    expect(channel.state).toBe('joined')
    expect(system.filter((m) => m.status === 'error')).toEqual([])

    // Out of the room, then the next refresh: the channel is closed.
    await sql('delete from public.rt_room_members where room = $1 and user_id = $2', [room, member.id])
    await member.client.realtime.setAuth(accessToken(member.id))
    const reason = `You no longer have permission to read from this Channel topic: ${room}`
    const notice = await waitFor(() => system.find((m) => m.status === 'error'))
    expect(notice).toMatchObject({ extension: 'system', status: 'error', message: reason, channel: room })
    await waitFor(() => (statuses.includes('CLOSED') ? true : undefined))
    expect(channel.state).toBe('closed')

    // Nothing more reaches it.
    await fromWriter.send({ type: 'broadcast', event: 'note', payload: { n: 2 } })
    await pause(500)
    expect(heard).toEqual([{ event: 'note', n: 1 }])
  })
})

describe('reconnecting', () => {
  it('a socket that drops comes back with the fresh token and keeps its private subscription', async () => {
    const room = uniqueRoom('reconnect-room')
    const reader = await signedIn('rtp-reconnect')
    await admit(room, reader, false)
    // Joined with a token about to expire.
    await reader.client.realtime.setAuth(accessToken(reader.id, 3))
    const channel = reader.client.channel(room, { config: { private: true } })
    const heard = collect(channel, 'after')
    await subscribed(channel)

    // A refresh hands the socket a new token; once the old one has expired
    // the connection drops (not a clean close, as a network failure does
    // it): joining again with the old token would be refused.
    await reader.client.realtime.setAuth(accessToken(reader.id))
    await pause(3500)
    // The phoenix socket under realtime-js, and its WebSocket.
    type Conn = { close(code?: number): void }
    const socket = (reader.client.realtime as unknown as { socketAdapter: { getSocket(): { conn: Conn | null } } })
      .socketAdapter.getSocket()
    const before = socket.conn
    expect(before).not.toBeNull()
    before!.close(4000)
    // realtime-js reconnects on its own and joins again with the fresh token.
    await waitFor(() => (socket.conn && socket.conn !== before && channel.state === 'joined' ? true : undefined), 15000)
    await sql(`select realtime.send('{"n": 1}', 'after', $1, true)`, [room])
    await waitFor(() => (heard.length > 0 ? true : undefined))
    expect(heard[0]).toMatchObject({ event: 'after', n: 1 })
    expect(channel.state).toBe('joined')
  })
})
