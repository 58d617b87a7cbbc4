#!/usr/bin/env bash
# Storage throughput: uploads (service role, raw body, x-upsert) and public
# downloads of 1 MB and 20 MB files in MB/s, each next to a plain file copy of
# the same bytes on the same disk measured in the same run (std::fs::copy,
# plus fsync for uploads, since the file store syncs every upload); the
# ratios are the figures. Then the plinth process's RSS is sampled while
# several clients download (and upload) 20 MB files concurrently: the peak
# growth should be far below one file (bodies are streamed, not buffered).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_build
bench_start_plinth
"$BENCH_BIN" storage --url "$PLINTH_URL" --service-key "$SERVICE_ROLE_KEY" --pid "$BENCH_PID" \
  --dir "$BENCH_DATA" --seconds "${SECONDS_EACH:-5}" --concurrency "${CONCURRENCY:-8}" --rounds "${ROUNDS:-10}"
# image transformations: first and cached render latency
. bench/storage-render.sh
bench_render
