#!/usr/bin/env bash
# Phone budgets of the marketplace app: the home page and a template page
# loaded cold in Chromium with a throttled phone profile (Lighthouse's mobile:
# 412x823 at 1.75, 150 ms RTT, 1.6 Mbps down, 750 kbps up applied as DevTools'
# "Slow 4G" does, CPU 4x slower; bench/phone/measure.mjs), for the app as it
# was at BASE_REF (default 70b5415, before issue 24) and as it is in the
# working tree, both served in turn by the same plinth on the same demo
# database; Home also on issue 44's slow connection (375 px, 400 ms latency,
# 50 KB/s). Reports the median of RUNS cold loads of each page and build:
# largest and first contentful paint, bytes transferred, long tasks and total
# blocking time, cumulative layout shift, with after / before.
#
# Settings: RUNS (5), BASE_REF, PLINTH_BIN (a plinth binary; default: the
# release build of bench/lib.sh), BEFORE_DIST / AFTER_DIST (existing builds
# to use instead of building), OUT (bench/results/phone.md), PHONE_NOTE (a
# sentence for the header), CHROMIUM_PATH (/usr/bin/chromium).
# Needs app/node_modules (npm ci in app/) and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS="${RUNS:-5}"
BASE_REF="${BASE_REF:-70b5415}"
OUT="${OUT:-bench/results/phone.md}"
if [ -n "${PLINTH_BIN:-}" ]; then PLINTH="$PLINTH_BIN"; else bench_build; fi
started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
revision="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- app ':!app/e2e' || echo ' (with uncommitted changes)')"
base_rev=$(git rev-parse --short "$BASE_REF")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
vite() { node_modules/.bin/vite build --outDir "$1" --emptyOutDir --logLevel error; }

# The app before: its sources at BASE_REF, built with app/node_modules when
# every package of its lockfile is there at the same version (else installed
# from its lockfile).
if [ -n "${BEFORE_DIST:-}" ]; then
  before=$(realpath "$BEFORE_DIST")
else
  echo "==> building the app at $base_rev" >&2
  mkdir -p "$TMP/base"
  git archive "$BASE_REF" app sdk-ts | tar -x -C "$TMP/base"
  if node -e '
    const [base, now] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")).packages)
    process.exit(Object.entries(base).every(([k, v]) => k === "" || now[k]?.version === v.version) ? 0 : 1)
  ' "$TMP/base/app/package-lock.json" app/package-lock.json; then
    ln -s "$PWD/app/node_modules" "$TMP/base/app/node_modules"
  else
    (cd "$TMP/base/app" && npm ci --no-audit --no-fund --loglevel error >/dev/null)
  fi
  before="$TMP/before"
  (cd "$TMP/base/app" && vite "$before")
fi
if [ -n "${AFTER_DIST:-}" ]; then
  after=$(realpath "$AFTER_DIST")
else
  echo "==> building the app of the working tree" >&2
  after="$TMP/after"
  (cd app && vite "$after")
fi

# plinth serves whichever build $TMP/site points to.
ln -s "$before" "$TMP/site"
BENCH_APP_DIR="$TMP/site"
bench_start_plinth
trap 'bench_stop; rm -rf "$TMP"' EXIT
env -u PLINTH_DATA_DIR DATABASE_URL="$BENCH_DB_URL" PLINTH_ENV_FILE=/dev/null PLINTH_DATA_DIR="$BENCH_DATA" \
  "$PLINTH" seed --demo >/dev/null

entry() { sed -n 's/.*<script type="module"[^>]* src="\([^"]*\)".*/\1/p' "$1/index.html" | head -1; }
serve() { # points $TMP/site at a build; restarts plinth if it still serves another one
  ln -sfn "$1" "$TMP/site"
  local want
  want=$(entry "$1")
  for path in / /template/e0000000-0000-4000-8000-000000000001; do
    if ! curl -sf "$PLINTH_URL$path" | grep -qF "$want"; then
      bench_restart_plinth
      break
    fi
  done
  curl -sf "$PLINTH_URL/" | grep -qF "$want" || { echo "phone.sh: plinth does not serve $1" >&2; exit 1; }
}

# Rounds alternate which build goes first, so that a drift of the machine's
# load during the run weighs on both alike.
for round in $(seq 1 "$RUNS"); do
  order="before after"
  [ $((round % 2)) -eq 0 ] && order="after before"
  for variant in $order; do
    echo "==> round $round/$RUNS: $variant" >&2
    if [ "$variant" = before ]; then serve "$before"; else serve "$after"; fi
    node bench/phone/measure.mjs "$PLINTH_URL" "$variant" "$round" "$TMP/loads.jsonl"
  done
done

chromium_version=$("${CHROMIUM_PATH:-/usr/bin/chromium}" --version 2>/dev/null | head -1 || echo chromium)
mkdir -p "$(dirname "$OUT")"
{
  echo "# Phone budgets"
  echo
  echo "\`bench/phone.sh\` at $revision against $base_rev (before), $(date -u '+%Y-%m-%d %H:%M UTC'), RUNS=$RUNS."
  echo "$chromium_version, headless; Lighthouse's mobile profile: 412x823 CSS px at 1.75,"
  echo "CPU 4x slower (Emulation.setCPUThrottlingRate), network 150 ms RTT, 1.6 Mbps down,"
  echo "750 kbps up, applied per request as DevTools' \"Slow 4G\" (562.5 ms latency, 1.47 Mbps"
  echo "down, 675 kbps up). \"home on the slow connection\" is issue 44's: 375x812 at 2, 400 ms"
  echo "latency, 50 KB/s down and up, the same CPU slowdown."
  echo "Cold cache (a new browser context for every load); a load ends"
  echo "when the page's content is shown and nothing was on the network for 2 s."
  echo "Both builds are served in turn by the same plinth ($(basename "$PLINTH")) on the same demo database."
  echo "Machine: $(nproc) cores; load average before the run: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Whole run: $(($(date +%s) - started)) s. Ratios (after / before) matter more than absolute numbers."
  [ -z "${PHONE_NOTE:-}" ] || { echo; echo "$PHONE_NOTE"; }
  echo
  node bench/phone/report.mjs "$TMP/loads.jsonl"
} >"$TMP/report.md"
cp "$TMP/report.md" "$OUT"
cat "$TMP/report.md"
