#!/usr/bin/env bash
# Auth throughput: password grants next to the raw argon2id hash rate measured
# in the same run (the ratio is the figure), and refresh grants.
# Uses the test server (DATABASE_URL, else 127.0.0.1:5432) with a database of
# its own, and a release build of plinth.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_build
bench_start_plinth ENABLE_EMAIL_AUTOCONFIRM=true GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS=1000000 \
  GOTRUE_RATE_LIMIT_TOKEN_REFRESH=1000000 GOTRUE_RATE_LIMIT_EMAIL_SENT=1000000
"$BENCH_BIN" auth --url "$PLINTH_URL" --anon-key "$ANON_KEY" --concurrency "${CONCURRENCY:-8}" --seconds "${SECONDS_EACH:-5}"
