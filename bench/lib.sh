# Shared by the bench scripts: a release build, and a plinth on a fresh
# database of the test server, stopped and dropped on exit.
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
BENCH_BIN="$TARGET/release/plinth-bench"
PLINTH="$TARGET/release/plinth"
SERVER_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

bench_build() {
  # bench/run builds once for all of its benchmarks.
  [ -n "${BENCH_SKIP_BUILD:-}" ] || cargo build --release -p plinth-server -p plinth-bench
}

bench_psql() { psql "$SERVER_URL" -v ON_ERROR_STOP=1 -qAt "$@"; }

# Arguments are more settings (NAME=value) for `plinth serve`. BENCH_APP_DIR
# is the built app it serves at `/` (default: none).
bench_start_plinth() {
  BENCH_DB="plinth_bench_$$"
  bench_psql -c "create database $BENCH_DB"
  BENCH_DB_URL="${SERVER_URL%/*}/$BENCH_DB"
  BENCH_DATA=$(mktemp -d)
  BENCH_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  BENCH_SERVE_ENV=("$@")
  trap bench_stop EXIT
  bench_serve
}

# Stops plinth and starts it again on the same database, data folder and port.
bench_restart_plinth() {
  kill -INT "$BENCH_PID" 2>/dev/null && wait "$BENCH_PID" 2>/dev/null || true
  bench_serve
}

bench_serve() {
  local port=$BENCH_PORT
  # The keys exported by an earlier start are not settings for this one.
  env -u ANON_KEY -u SERVICE_ROLE_KEY "${BENCH_SERVE_ENV[@]}" DATABASE_URL="$BENCH_DB_URL" PLINTH_DATA_DIR="$BENCH_DATA" PLINTH_ENV_FILE=/dev/null \
    RUST_LOG=error PLINTH_APP_DIR="${BENCH_APP_DIR:-/nonexistent}" "$PLINTH" serve --port "$port" >"$BENCH_DATA/out" 2>"$BENCH_DATA/err" &
  BENCH_PID=$!
  for _ in $(seq 1 300); do
    grep -q "Plinth is ready" "$BENCH_DATA/out" 2>/dev/null && break
    kill -0 "$BENCH_PID" 2>/dev/null || { cat "$BENCH_DATA/err"; exit 1; }
    sleep 0.1
  done
  PLINTH_URL="http://127.0.0.1:$port"
  ANON_KEY=$(sed -n 's/^ANON_KEY=//p' "$BENCH_DATA/out")
  SERVICE_ROLE_KEY=$(sed -n 's/^SERVICE_ROLE_KEY=//p' "$BENCH_DATA/out")
  export PLINTH_URL ANON_KEY SERVICE_ROLE_KEY BENCH_DB_URL
}

bench_stop() {
  [ -n "${BENCH_PID:-}" ] && kill -INT "$BENCH_PID" 2>/dev/null && wait "$BENCH_PID" 2>/dev/null || true
  [ -n "${BENCH_DB:-}" ] && bench_psql -c "drop database if exists $BENCH_DB with (force)" || true
  [ -n "${BENCH_DATA:-}" ] && rm -rf "$BENCH_DATA"
}
