#!/usr/bin/env bash
# REST gateway throughput and p99 latency at 32 concurrent connections, each
# next to the same work run by pgbench -M prepared in the same run, at the
# same concurrency, in PostgREST's transaction shape (BEGIN; set_config of
# role and claims; the statement; COMMIT; one round trip each). The ratio
# gateway/pgbench is the figure.
#
# Synthetic (bench/rest/schema.sql, hand-written baselines): (pk) a
# primary-key read, (list) a 20-row page with a to-one and a to-many embed,
# (rpc) a function call. The marketplace on the demo seed (baselines: the
# statement the gateway itself renders, from `plinth-bench rest-sql`):
# (discover) the Discover list with its filters, search and order, with the
# category and creator embedded; (detail) one template page; (trending) the
# upvote ranking; (creators) the trending-creators function.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
PGBENCH=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)
[ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench)
CONNS=${CONNECTIONS:-32}
SECS=${SECONDS_EACH:-10}
bench_build
bench_start_plinth
psql "$BENCH_DB_URL" -v ON_ERROR_STOP=1 -q -f bench/rest/schema.sql
DATABASE_URL="$BENCH_DB_URL" PLINTH_DATA_DIR="$BENCH_DATA" PLINTH_ENV_FILE=/dev/null "$PLINTH" seed --demo >/dev/null
for _ in $(seq 1 100); do
  curl -sf -o /dev/null -H "apikey: $ANON_KEY" "$PLINTH_URL/rest/v1/bench_items?limit=1" && break
  sleep 0.1
done

# The marketplace's requests, as the app sends them (columns of
# app/src/lib/templates/list-columns.ts).
COLUMNS='id,user_id,title,description,preview_image_url,preview_images,template_file_url,price,price_in_cents,downloads_count,total_views,average_rating,total_ratings,created_at,updated_at,tags,features_included,requirements,category_id,is_published,status,author,about_template,template_url'
TEMPLATE=$(psql "$BENCH_DB_URL" -qAt -c "select id from public.templates where is_published order by created_at limit 1")
[ -n "$TEMPLATE" ] || { echo "the demo seed has no published template"; exit 1; }
declare -A MARKET=(
  [discover]="/templates?select=$COLUMNS,category:categories(name,slug),creator:profiles!templates_user_id_fkey(username,avatar_url)&is_published=eq.true&price=gt.0&or=(title.ilike.%25e%25,description.ilike.%25e%25)&order=created_at.desc"
  [detail]="/templates?select=$COLUMNS&id=eq.$TEMPLATE&is_published=eq.true"
  [trending]="/template_upvote_counts?select=template_id,upvote_count,latest_upvote_at&order=upvote_count.desc,latest_upvote_at.desc&limit=8"
  [creators]="/rpc/get_trending_creators?limit_count=4"
)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; bench_stop' EXIT
for w in "${!MARKET[@]}"; do
  path=${MARKET[$w]}
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H "apikey: $ANON_KEY" "$PLINTH_URL/rest/v1$path")" = 200 ] || {
    echo "the gateway refuses $w: $(curl -s -H "apikey: $ANON_KEY" "$PLINTH_URL/rest/v1$path")"; exit 1; }
  printf 'request = function() return wrk.format("GET", "/rest/v1%s") end\n' "$path" >"$WORK/$w.lua"
  "$BENCH_BIN" rest-sql --db-url "$BENCH_DB_URL" --path "$path" >"$WORK/$w.pgbench"
done

printf '%-9s %12s %8s %12s %8s %6s\n' work gateway_rps p99_ms pgbench_tps p99_ms ratio
measure() { # name lua pgbench
  local w=$1 lua=$2 script=$3
  # Warm up both sides.
  wrk -t2 -c"$CONNS" -d2s -s "$lua" -H "apikey: $ANON_KEY" "$PLINTH_URL" >/dev/null
  "$PGBENCH" -n -M prepared -c "$CONNS" -j 2 -T 2 -f "$script" "$BENCH_DB_URL" >/dev/null 2>&1
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s "$lua" -H "apikey: $ANON_KEY" "$PLINTH_URL")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  [ -z "$non2xx" ] || { echo "gateway answered errors during $w: $out"; exit 1; }
  p99=$(awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}' <<<"$out")
  # pgbench's p99 comes from its per-transaction log.
  logdir=$(mktemp -d)
  pgout=$(cd "$logdir" && "$PGBENCH" -n -M prepared -c "$CONNS" -j 2 -T "$SECS" -l -f "$script" "$BENCH_DB_URL" 2>&1)
  tps=$(awk '/^tps/ {print $3; exit}' <<<"$pgout")
  pg99=$(cat "$logdir"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.99)]/1000}')
  rm -rf "$logdir"
  ratio=$(awk -v a="$rps" -v b="$tps" 'BEGIN {printf "%.2f", a/b}')
  printf '%-9s %12.0f %8.2f %12.0f %8.2f %6s\n' "$w" "$rps" "$p99" "$tps" "$pg99" "$ratio"
}
for w in pk list rpc; do
  measure "$w" "bench/rest/$w.lua" "$PWD/bench/rest/$w.pgbench"
done
for w in discover detail trending creators; do
  measure "$w" "$WORK/$w.lua" "$WORK/$w.pgbench"
done
echo "(ratio = gateway requests/s / pgbench transactions/s; goal 1.0 or more)"
