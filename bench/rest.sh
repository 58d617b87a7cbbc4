#!/usr/bin/env bash
# REST gateway throughput and p99 latency at 32 concurrent connections for
# (pk) a primary-key read, (list) a 20-row page with a to-one and a to-many
# embed, (rpc) a function call; each next to the same work run by pgbench
# -M prepared in the same run, at the same concurrency, in PostgREST's
# transaction shape (BEGIN; set_config of role and claims; the statement;
# COMMIT; one round trip each). The ratio gateway/pgbench is the figure.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
command -v wrk >/dev/null || { say() { echo "$*"; }; apt-get install -y -qq wrk >/dev/null; }
PGBENCH=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)
[ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench)
CONNS=${CONNECTIONS:-32}
SECS=${SECONDS_EACH:-10}
bench_build
bench_start_plinth
psql "$BENCH_DB_URL" -v ON_ERROR_STOP=1 -q -f bench/rest/schema.sql
for _ in $(seq 1 100); do
  curl -sf -o /dev/null -H "apikey: $ANON_KEY" "$PLINTH_URL/rest/v1/bench_items?limit=1" && break
  sleep 0.1
done

printf '%-6s %14s %10s %16s %10s %8s\n' work gateway_rps p99_ms pgbench_tps p99_ms ratio
for w in pk list rpc; do
  # Warm up both sides.
  wrk -t2 -c"$CONNS" -d2s -s "bench/rest/$w.lua" -H "apikey: $ANON_KEY" "$PLINTH_URL" >/dev/null
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s "bench/rest/$w.lua" -H "apikey: $ANON_KEY" "$PLINTH_URL")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  [ -z "$non2xx" ] || { echo "gateway answered errors during $w: $out"; exit 1; }
  p99=$(awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}' <<<"$out")
  pgout=$("$PGBENCH" -n -M prepared -c "$CONNS" -j 2 -T "$SECS" -f "bench/rest/$w.pgbench" "$BENCH_DB_URL" 2>&1)
  tps=$(awk '/^tps/ {print $3; exit}' <<<"$pgout")
  lat=$(awk '/latency average/ {print $4}' <<<"$pgout")
  # pgbench reports the average latency; its p99 comes from a per-transaction log.
  logdir=$(mktemp -d)
  (cd "$logdir" && "$PGBENCH" -n -M prepared -c "$CONNS" -j 2 -T 3 -l -f "$OLDPWD/bench/rest/$w.pgbench" "$BENCH_DB_URL" >/dev/null 2>&1)
  pg99=$(cat "$logdir"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.99)]/1000}')
  rm -rf "$logdir"
  ratio=$(awk -v a="$rps" -v b="$tps" 'BEGIN {printf "%.2f", a/b}')
  printf '%-6s %14.0f %10.2f %16.0f %10.2f %8s\n' "$w" "$rps" "$p99" "$tps" "$pg99" "$ratio"
done
echo "(ratio = gateway requests/s / pgbench transactions/s; minimum 0.5, goal 1.0)"
