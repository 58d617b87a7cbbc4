#!/usr/bin/env bash
# Footprint of one node on its embedded default (`plinth serve` on a fresh
# data folder: a private PostgreSQL cluster, the demo seed): the release
# binary's size, the app's initial JavaScript gzipped (the entry script and
# its modulepreloads in app/dist/index.html), the idle memory of plinth (RSS)
# and of its PostgreSQL (PSS summed over the postmaster and its children, so
# shared buffers count once), and start-up to ready on the initialised folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
. scripts/lib.sh
bench_build
if [ ! -f app/dist/index.html ]; then
  npm_ci app >&2
  (cd app && npm run --silent build >/dev/null)
fi

mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1e6}'; }
kb() { awk -v k="$1" 'BEGIN {printf "%.1f MB", k / 1024}'; }
js=0
for f in $(grep -oE '(src|href)="/assets/[^"]+\.js"' app/dist/index.html | sed -E 's/^(src|href)="\/?//; s/"$//' | sort -u); do
  js=$((js + $(gzip -9 -c "app/dist/$f" | wc -c)))
done

DATA=$(mktemp -d)
chmod 755 "$DATA"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PID=
stop() {
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  PID=
}
trap 'stop; rm -rf "$DATA"' EXIT
serve() { # waits for "ready"; sets PID and ELAPSED (milliseconds)
  local t0 t1
  t0=$(date +%s%N)
  env -u DATABASE_URL PLINTH_DATA_DIR="$DATA" PLINTH_ENV_FILE=/dev/null RUST_LOG=error \
    PLINTH_APP_DIR="$PWD/app/dist" "$PLINTH" serve --port "$PORT" >"$DATA/out" 2>"$DATA/err" &
  PID=$!
  for _ in $(seq 1 1200); do
    grep -q "Plinth is ready" "$DATA/out" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || { cat "$DATA/err" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(date +%s%N)
  ELAPSED=$(((t1 - t0) / 1000000))
}
serve
first=$ELAPSED
env -u DATABASE_URL PLINTH_DATA_DIR="$DATA" PLINTH_ENV_FILE=/dev/null "$PLINTH" seed --demo >/dev/null
# One page of the app and one list, then idle.
curl -sf -o /dev/null "http://127.0.0.1:$PORT/"
sleep 3
plinth_rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
postmaster=$(head -1 "$DATA/postgres/postmaster.pid")
pg_pss=0
pg_procs=0
for p in "$postmaster" $(pgrep -P "$postmaster"); do
  pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
  pg_pss=$((pg_pss + ${pss:-0}))
  pg_procs=$((pg_procs + 1))
done
stop
serve
ready=$ELAPSED
stop

printf '%-44s %s\n' "release binary" "$(mb "$(stat -c %s "$PLINTH")")"
printf '%-44s %s\n' "app initial JS, gzipped" "$(awk -v b="$js" 'BEGIN {printf "%.1f kB", b / 1000}')"
printf '%-44s %s\n' "plinth idle RSS (demo seed)" "$(kb "$plinth_rss")"
printf '%-44s %s\n' "its PostgreSQL idle PSS ($pg_procs processes)" "$(kb "$pg_pss")"
printf '%-44s %s\n' "first start (initdb, migrations)" "$first ms"
printf '%-44s %s\n' "start-up to ready, initialised folder" "$ready ms"
