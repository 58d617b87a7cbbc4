//! Security tests: realtime.
