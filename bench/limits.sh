#!/usr/bin/env bash
# The rate limiter every service shares (crates/limits): checks per second of
# one client while the limiter holds HELD clients at their limits, against
# the same checks while it holds 64, in the same run (the ratio is the
# figure: 1.0 means a limited call costs the same however many clients are
# limited). No server: the limiter alone, in the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_build
"$BENCH_BIN" limits --held "${HELD:-200000}" --seconds "${SECONDS_EACH:-3}"
