# Shared by scripts/serve and scripts/test: install what is missing, quietly
# when nothing is.

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

APT_UPDATED=""
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    say "apt-get is not available: install $* with your system's package manager"
    return 1
  fi
  if [ -z "$APT_UPDATED" ]; then
    as_root apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL server binaries (initdb, postgres), for the embedded cluster and
# for a throwaway test server.
pg_bin_dir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -rn); do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(readlink -f "$(command -v initdb)")"; return 0; }
  return 1
}

ensure_postgres_binaries() {
  if ! pg_bin_dir >/dev/null; then
    say "installing PostgreSQL (server binaries)"
    apt_install postgresql
  fi
}

# PostGIS for the local test server (the REST gateway's GeoJSON cases):
# Debian's postgresql-<major>-postgis-3 for the server binaries in use.
# $1: the server's bin folder (see pg_bin_dir).
ensure_postgis() {
  local major
  major=$(basename "$(dirname "$1")")
  case "$major" in ''|*[!0-9]*) return 0 ;; esac
  if [ ! -f "/usr/share/postgresql/$major/extension/postgis.control" ]; then
    say "installing PostGIS (postgresql-$major-postgis-3, GeoJSON tests)"
    apt_install "postgresql-$major-postgis-3" || say "PostGIS not installed: the GeoJSON tests check the error case"
  fi
}

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    say "cargo is missing: install Rust 1.94 or newer (https://rustup.rs), then run this again"
    exit 1
  fi
}

# moto[server] (PyPI), the S3-compatible server the storage suite runs its
# S3 pass against. Uses python3's own moto when it has one, else a venv
# under ~/.cache/plinth/moto-venv (pip install --user as a fallback).
# Exports PLINTH_MOTO_PYTHON; fails loudly when moto cannot be installed.
ensure_moto() {
  local venv="$HOME/.cache/plinth/moto-venv"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import moto.server' 2>/dev/null; then
    export PLINTH_MOTO_PYTHON="$venv/bin/python"; return 0
  fi
  if command -v python3 >/dev/null 2>&1 && python3 -c 'import moto.server, flask' 2>/dev/null; then
    export PLINTH_MOTO_PYTHON="$(command -v python3)"; return 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    say "installing Python 3 (moto S3 server for the storage tests)"
    apt_install python3 python3-venv python3-pip
  fi
  say "installing moto[server] into $venv (S3 tests)"
  if ! { python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv && python3 -m venv "$venv"; }; } \
     || ! "$venv/bin/python" -m pip install -q 'moto[server]>=5,<6'; then
    rm -rf "$venv"
    say "no venv: trying pip install --user"
    python3 -m pip install -q --user 'moto[server]>=5,<6' || python3 -m pip install -q --user --break-system-packages 'moto[server]>=5,<6'
    python3 -c 'import moto.server' || { say "moto[server] could not be installed: the S3 storage tests cannot run"; exit 1; }
    export PLINTH_MOTO_PYTHON="$(command -v python3)"; return 0
  fi
  export PLINTH_MOTO_PYTHON="$venv/bin/python"
}

# Deno, the runtime of the users' edge functions (/functions/v1/<name>): the
# function host starts one Deno worker process per function. Uses
# PLINTH_DENO_BIN when it is set and executable, else `deno` on PATH, else
# the binary that the npm registry ships in @deno/linux-<arch>-glibc, unpacked
# once into ~/.cache/plinth/deno/<version>/. Exports PLINTH_DENO_BIN; fails
# loudly when Deno cannot be had.
DENO_VERSION=2.9.6
ensure_deno() {
  if [ -n "${PLINTH_DENO_BIN:-}" ]; then
    if [ -x "$PLINTH_DENO_BIN" ]; then export PLINTH_DENO_BIN; return 0; fi
    say "PLINTH_DENO_BIN=$PLINTH_DENO_BIN is not an executable file: looking for Deno elsewhere"
  fi
  if command -v deno >/dev/null 2>&1; then
    export PLINTH_DENO_BIN="$(command -v deno)"; return 0
  fi
  local dir="$HOME/.cache/plinth/deno/$DENO_VERSION"
  if [ -x "$dir/deno" ] && "$dir/deno" --version >/dev/null 2>&1; then
    export PLINTH_DENO_BIN="$dir/deno"; return 0
  fi
  local arch
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) say "no Deno build for $(uname -m) on the npm registry: set PLINTH_DENO_BIN to a deno binary"; exit 1 ;;
  esac
  ensure_node
  say "installing Deno $DENO_VERSION (npm: @deno/linux-$arch-glibc) into $dir"
  local tmp
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack --silent --loglevel=error "@deno/linux-$arch-glibc@$DENO_VERSION" >/dev/null \
        && tar -xzf deno-linux-"$arch"-glibc-"$DENO_VERSION".tgz package/deno) \
     || ! chmod +x "$tmp/package/deno" || ! "$tmp/package/deno" --version >/dev/null; then
    rm -rf "$tmp"
    say "Deno could not be installed from the npm registry: set PLINTH_DENO_BIN to a deno binary"
    exit 1
  fi
  mkdir -p "$dir"
  mv "$tmp/package/deno" "$dir/deno"
  rm -rf "$tmp"
  export PLINTH_DENO_BIN="$dir/deno"
}

ensure_node() {
  if ! command -v npm >/dev/null 2>&1; then
    say "installing Node.js and npm"
    apt_install nodejs npm
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    say "installing Chromium (browser tests)"
    apt_install chromium
  fi
}

# npm ci in a folder, skipped when its node_modules matches its lock file.
npm_ci() {
  local dir=$1
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.lock-copy"; then
    say "npm ci in $dir"
    # npm records only this platform's optional packages (native builds of
    # tailwind, rollup) in a lock made here, which `npm ci` then calls out of
    # sync; `npm install` installs from the same lock without that check,
    # but rewrites it: the committed lock is put back afterwards.
    local saved
    saved=$(mktemp)
    cp "$dir/package-lock.json" "$saved"
    (cd "$dir" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
        || npm install --no-audit --no-fund --loglevel=error; } \
      && cp "$saved" package-lock.json && cp package-lock.json node_modules/.lock-copy)
    local status=$?
    rm -f "$saved"
    return $status
  fi
}

# The Python compatibility suite's virtual environment (sdk-py): the
# platform's official Python clients and pytest, pinned in
# sdk-py/requirements.txt, installed into ~/.cache/plinth/py-venv, again
# only when that file changes (its hash is kept in the venv). Exports
# PY_VENV; fails loudly when the venv cannot be made.
ensure_python_venv() {
  local venv="$HOME/.cache/plinth/py-venv" req="sdk-py/requirements.txt" hash
  if ! command -v python3 >/dev/null 2>&1; then
    say "installing Python 3 (the Python compatibility suite)"
    apt_install python3 python3-venv
  fi
  hash=$(sha256sum "$req" | cut -d' ' -f1)
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" = "$hash" ]; then
    export PY_VENV="$venv"; return 0
  fi
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" 2>/dev/null; then
      rm -rf "$venv"
      say "installing python3-venv (the Python compatibility suite)"
      apt_install python3-venv
      python3 -m venv "$venv" || { say "no Python venv could be made in $venv"; exit 1; }
    fi
  fi
  say "installing the Python suite's packages (sdk-py/requirements.txt) into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" \
    || { say "pip could not install sdk-py/requirements.txt"; exit 1; }
  echo "$hash" > "$venv/.requirements.sha256"
  export PY_VENV="$venv"
}
