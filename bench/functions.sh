#!/usr/bin/env bash
# The function host: a hello-world edge function (bench/functions/hello,
# `Deno.serve(() => new Response('hello'))`) served by plinth at
# /functions/v1/hello (PLINTH_FUNCTIONS_DIR=bench/functions; verify_jwt on,
# called with the anon key), next to the same file run by a bare
# `deno run --allow-net` on its own port (DENO_SERVE_ADDRESS) in the same
# run. Same Deno binary and DENO_DIR for both.
#
# (cold) time to the first response of a fresh function: for plinth, from the
# request to its response, with no worker running for it (workers are let go
# after PLINTH_FUNCTIONS_IDLE_SECS=1, and the script waits until no deno
# process is left under plinth); for the baseline, from starting the deno
# process to its first response (connect retried every 1 ms). COLD_SAMPLES
# each, after one unmeasured start per side (the module cache is warm).
# (warm) requests/s and p99 with wrk at CONNECTIONS connections, SECONDS_EACH
# seconds each, after a 2 s warm-up.
# The ratios plinth/bare are the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh
command -v wrk >/dev/null || apt_install wrk
ensure_deno
export DENO_DIR="${DENO_DIR:-$HOME/.cache/plinth/deno-dir}"
CONNS=${CONNECTIONS:-32}
SECS=${SECONDS_EACH:-10}
SAMPLES=${COLD_SAMPLES:-5}
FUNCTION="$PWD/bench/functions/hello/index.ts"

bench_build
bench_start_plinth PLINTH_FUNCTIONS_DIR="$PWD/bench/functions" PLINTH_FUNCTIONS_IDLE_SECS=1 \
  PLINTH_DENO_BIN="$PLINTH_DENO_BIN" DENO_DIR="$DENO_DIR"
HELLO="$PLINTH_URL/functions/v1/hello"
BARE_PID=""
WORK=$(mktemp -d)
trap '[ -n "$BARE_PID" ] && kill "$BARE_PID" 2>/dev/null; rm -rf "$WORK"; bench_stop' EXIT

# Timings of one request (`request URL [header]...`) or of a process start to
# its first response (`spawn URL -- command...`), in ms; checks the body.
cat >"$WORK/cold.py" <<'PY'
import http.client, subprocess, sys, time, urllib.parse
mode, url = sys.argv[1], urllib.parse.urlsplit(sys.argv[2])
def get(headers):
    c = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    try:
        c.request('GET', url.path, headers=headers)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()
def check(status, body):
    if status != 200 or body != b'hello':
        sys.exit(f'{sys.argv[2]} answered {status}: {body[:300]!r}')
if mode == 'request':
    headers = dict(h.split(': ', 1) for h in sys.argv[3:])
    t0 = time.perf_counter()
    check(*get(headers))
    print(f'{(time.perf_counter() - t0) * 1000:.1f}')
else:
    argv = sys.argv[sys.argv.index('--') + 1:]
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if p.poll() is not None:
                sys.exit(f'{argv} exited with {p.returncode}')
            try:
                answer = get({})
                break
            except OSError:
                time.sleep(0.001)
            if time.perf_counter() - t0 > 60:
                sys.exit(f'{argv} did not answer within 60 s')
        elapsed = time.perf_counter() - t0
        check(*answer)
        print(f'{elapsed * 1000:.1f}')
    finally:
        p.terminate()
        p.wait()
PY

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Deno processes started by plinth (children or further down).
plinth_workers() {
  ps -e -o pid=,ppid=,comm= | awk -v root="$BENCH_PID" '
    { parent[$1] = $2; name[$1] = $3 }
    END { n = 0; for (p in parent) { if (name[p] != "deno") continue
            for (q = parent[p]; q > 1; q = parent[q]) if (q == root) { n++; break } }
          print n }'
}
no_workers() {
  for _ in $(seq 1 300); do
    [ "$(plinth_workers)" = 0 ] && return 0
    sleep 0.1
  done
  echo "plinth still runs $(plinth_workers) deno worker(s) 30 s after the last request" >&2
  exit 1
}
cold_plinth() {
  no_workers
  python3 "$WORK/cold.py" request "$HELLO" "apikey: $ANON_KEY" "Authorization: Bearer $ANON_KEY"
}
cold_bare() {
  local port
  port=$(free_port)
  DENO_SERVE_ADDRESS="tcp:127.0.0.1:$port" python3 "$WORK/cold.py" spawn "http://127.0.0.1:$port/" -- \
    "$PLINTH_DENO_BIN" run --allow-net "$FUNCTION"
}
# median min max of the numbers on stdin
summary() { sort -n | awk '{a[NR]=$1} END {printf "%.1f %.1f %.1f", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR]}'; }

cold_plinth >/dev/null
cold_bare >/dev/null
: >"$WORK/cold-plinth"
: >"$WORK/cold-bare"
for _ in $(seq 1 "$SAMPLES"); do
  cold_plinth >>"$WORK/cold-plinth"
  cold_bare >>"$WORK/cold-bare"
done
read -r pc_med pc_min pc_max <<<"$(summary <"$WORK/cold-plinth")"
read -r bc_med bc_min bc_max <<<"$(summary <"$WORK/cold-bare")"

BARE_PORT=$(free_port)
DENO_SERVE_ADDRESS="tcp:127.0.0.1:$BARE_PORT" "$PLINTH_DENO_BIN" run --allow-net "$FUNCTION" >/dev/null 2>&1 &
BARE_PID=$!
for _ in $(seq 1 300); do
  curl -sf -o /dev/null "http://127.0.0.1:$BARE_PORT/" && break
  sleep 0.1
done

warm() { # name url [wrk args]...
  local name=$1 url=$2 out rps p99 non2xx
  shift 2
  wrk -t2 -c"$CONNS" -d2s "$@" "$url" >/dev/null
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" --latency "$@" "$url")
  non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  [ -z "$non2xx" ] || { echo "$name answered errors: $out" >&2; exit 1; }
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}' <<<"$out")
  echo "$rps $p99"
}
plinth_warm=$(warm plinth "$HELLO" -H "apikey: $ANON_KEY" -H "Authorization: Bearer $ANON_KEY")
bare_warm=$(warm bare "http://127.0.0.1:$BARE_PORT/")
read -r pw_rps pw_p99 <<<"$plinth_warm"
read -r bw_rps bw_p99 <<<"$bare_warm"

echo "deno $("$PLINTH_DENO_BIN" --version | head -1 | cut -d' ' -f2); cold: $SAMPLES samples each; warm: wrk, $CONNS connections, ${SECS} s"
printf '%-22s %12s %12s %7s\n' measure plinth bare_deno ratio
printf '%-22s %12s %12s %7s\n' "cold start ms (median)" "$pc_med" "$bc_med" "$(awk -v a="$pc_med" -v b="$bc_med" 'BEGIN {printf "%.2f", a/b}')"
printf '%-22s %12s %12s\n' "cold start ms (min-max)" "$pc_min-$pc_max" "$bc_min-$bc_max"
printf '%-22s %12.0f %12.0f %7s\n' "warm req/s" "$pw_rps" "$bw_rps" "$(awk -v a="$pw_rps" -v b="$bw_rps" 'BEGIN {printf "%.2f", a/b}')"
printf '%-22s %12.2f %12.2f %7s\n' "warm p99 ms" "$pw_p99" "$bw_p99" "$(awk -v a="$pw_p99" -v b="$bw_p99" 'BEGIN {printf "%.2f", a/b}')"
echo "(ratio = plinth / bare deno: cold start and p99 goal close to 1.0 or less, req/s close to 1.0 or more)"
