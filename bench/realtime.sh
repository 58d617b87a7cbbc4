#!/usr/bin/env bash
# Realtime: (a) broadcast fan-out: 1,000 loopback websockets joined to one
# channel, one publisher sending broadcasts as fast as every socket keeps up
# (a bounded number in flight), deliveries per second across all sockets,
# next to the same frames fanned out to the same number of loopback
# websockets by a plain tokio broadcast channel and one writer task per
# socket, in the same run; (b) INSERT -> postgres_changes latency at a
# subscriber, p50/p99, interleaved with a plain pg_notify -> LISTEN round
# trip on the same database. The ratios are the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
CLIENTS=${CLIENTS:-1000}
# Both ends of every socket of the baseline live in the bench process.
need=$((2 * CLIENTS + 1024))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
  ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
fi
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge "$need" ] || {
  echo "ulimit -n is $(ulimit -n), $need file descriptors needed (lower CLIENTS)"; exit 1; }
bench_build
# The publisher sends far more than the default 100 messages per second per
# socket, and every socket comes from this one address with one key (past
# the default 200 per address and 50 per user).
bench_start_plinth REALTIME_MAX_EVENTS_PER_SECOND=100000000 REALTIME_MAX_CONNECTIONS=$((CLIENTS + 100)) \
  REALTIME_MAX_CONNECTIONS_PER_IP=$((CLIENTS + 100)) REALTIME_MAX_CONNECTIONS_PER_USER=$((CLIENTS + 100))
"$BENCH_BIN" realtime --url "$PLINTH_URL" --anon-key "$ANON_KEY" --db-url "$BENCH_DB_URL" \
  --clients "$CLIENTS" --seconds "${SECONDS_EACH:-10}" --window "${WINDOW:-64}" --inserts "${INSERTS:-500}"
