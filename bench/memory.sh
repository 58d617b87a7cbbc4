#!/usr/bin/env bash
# plinth's memory under 64 connections of mixed load: 32 REST readers (wrk on
# the demo seed's Discover query), 16 uploaders (4 MB files, curl loops) and
# 16 password sign-ins (curl loops), for SECONDS_EACH seconds. Reports the
# idle RSS, the peak under load (VmHWM, sampled VmRSS), and the RSS a few
# seconds after the load stops (the node gives freed memory back). The
# baseline is the idle RSS of the same process.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
command -v wrk >/dev/null || { echo "bench/memory.sh needs wrk (apt-get install -y wrk)" >&2; exit 1; }
SECONDS_EACH=${SECONDS_EACH:-20}
bench_build
bench_start_plinth ENABLE_EMAIL_AUTOCONFIRM=true GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS=1000000 \
  GOTRUE_RATE_LIMIT_TOKEN_REFRESH=1000000 PLINTH_STORAGE_UPLOAD_MEMORY_MB="${UPLOAD_MEMORY_MB:-128}"
env -u PLINTH_DATA_DIR DATABASE_URL="$BENCH_DB_URL" PLINTH_ENV_FILE=/dev/null PLINTH_DATA_DIR="$BENCH_DATA" \
  "$PLINTH" seed --demo >/dev/null
rss() { awk '/^VmRSS/ {print $2}' "/proc/$BENCH_PID/status"; }
mb() { awk -v k="$1" 'BEGIN {printf "%.1f MB", k / 1024}'; }
H=(-H "apikey: $ANON_KEY")
curl -sf "${H[@]}" -H "authorization: Bearer $SERVICE_ROLE_KEY" -H 'content-type: application/json' \
  -d '{"name":"memory","public":false}' "$PLINTH_URL/storage/v1/bucket" >/dev/null
curl -sf "${H[@]}" -H 'content-type: application/json' -d '{"email":"mem@example.com","password":"memory-bench-1"}' \
  "$PLINTH_URL/auth/v1/signup" >/dev/null
head -c 4000000 /dev/urandom >"$BENCH_DATA/upload.bin"
sleep 2
idle=$(rss)
echo 3 >"/proc/$BENCH_PID/clear_refs" 2>/dev/null || true
END=$((SECONDS + SECONDS_EACH))
pids=()
for i in $(seq 1 16); do
  (while [ $SECONDS -lt $END ]; do
    curl -s -o /dev/null "${H[@]}" -H "authorization: Bearer $SERVICE_ROLE_KEY" \
      -H 'content-type: application/octet-stream' -H 'x-upsert: true' \
      --data-binary @"$BENCH_DATA/upload.bin" "$PLINTH_URL/storage/v1/object/memory/u$i.bin" || true
  done) &
  pids+=($!)
  (while [ $SECONDS -lt $END ]; do
    curl -s -o /dev/null "${H[@]}" -H 'content-type: application/json' \
      -d '{"email":"mem@example.com","password":"memory-bench-1"}' \
      "$PLINTH_URL/auth/v1/token?grant_type=password" || true
  done) &
  pids+=($!)
done
wrk -t2 -c32 -d"${SECONDS_EACH}s" -H "apikey: $ANON_KEY" \
  "$PLINTH_URL/rest/v1/templates?select=id,title,price,categories(name),profiles(username)&is_published=eq.true&order=created_at.desc&limit=20" \
  >"$BENCH_DATA/wrk" &
pids+=($!)
peak=$idle
while [ $SECONDS -lt $END ]; do
  now=$(rss)
  [ "$now" -gt "$peak" ] && peak=$now
  sleep 0.2
done
wait "${pids[@]}" 2>/dev/null || true
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$BENCH_PID/status")
[ "$hwm" -gt "$peak" ] && peak=$hwm
sleep 5
after=$(rss)
reads=$(awk '/Requests\/sec/ {print $2}' "$BENCH_DATA/wrk")
printf '%-52s %s\n' "plinth RSS idle (demo seed)" "$(mb "$idle")"
printf '%-52s %s (%.1f x idle)\n' "peak under 64 connections of mixed load" "$(mb "$peak")" "$(awk -v p="$peak" -v i="$idle" 'BEGIN {print p / i}')"
printf '%-52s %s\n' "5 s after the load stopped" "$(mb "$after")"
printf '%-52s %s req/s\n' "REST reads during the load" "$reads"
