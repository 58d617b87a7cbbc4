#!/usr/bin/env bash
# Bytes a home-page load transfers for its stored images, before and after
# renditions: 8 template cards (1600x1000 photo-like previews) and 6 creator
# avatars (800x800), fetched as full uploads (object/public, what the app
# loaded before) and as the renditions the app asks for now (cards width 640,
# avatars 96x96, Accept: image/webp as a browser sends). PLINTH_BIN picks a
# plinth binary (default: the release build of bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
if [ -n "${PLINTH_BIN:-}" ]; then PLINTH="$PLINTH_BIN"; else bench_build; fi
bench_start_plinth
dir=$(mktemp -d)
python3 - "$dir" <<'PY'
import math, struct, sys, zlib
def png(path, w, h, seed):
    rows = bytearray()
    for y in range(h):
        rows.append(0)
        for x in range(w):
            v = int(127 + 60 * math.sin((x + seed) / 37.0) * math.cos((y - seed) / 23.0))
            rows += bytes(((x * 255 // w) ^ (v & 0x1f), (y * 255 // h + v) & 0xff, (x * y // 97 + v + seed) & 0xff))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))
for i in range(8):
    png(f"{sys.argv[1]}/card{i}.png", 1600, 1000, i * 7)
for i in range(6):
    png(f"{sys.argv[1]}/avatar{i}.png", 800, 800, i * 11)
PY
auth=(-H "authorization: Bearer $SERVICE_ROLE_KEY")
for f in "$dir"/*.png; do
  bucket=templates; case "$(basename "$f")" in avatar*) bucket=avatars ;; esac
  curl -sf -o /dev/null -X POST "$PLINTH_URL/storage/v1/object/$bucket/bench/$(basename "$f")" \
    "${auth[@]}" -H 'content-type: image/png' --data-binary "@$f"
done
before=0; after=0
for f in "$dir"/*.png; do
  name=$(basename "$f"); bucket=templates; query='width=640&resize=cover'
  case "$name" in avatar*) bucket=avatars; query='width=96&height=96&resize=cover' ;; esac
  b=$(curl -sf -o /dev/null -w '%{size_download}' "$PLINTH_URL/storage/v1/object/public/$bucket/bench/$name")
  a=$(curl -sf -o /dev/null -H 'accept: image/avif,image/webp,*/*' -w '%{size_download}' \
    "$PLINTH_URL/storage/v1/render/image/public/$bucket/bench/$name?$query")
  before=$((before + b)); after=$((after + a))
done
rm -rf "$dir"
echo "home page stored images (8 cards, 6 avatars): full uploads $before bytes, renditions $after bytes"
python3 -c "print(f'renditions are {100 * $after / $before:.1f}% of the full uploads')"
