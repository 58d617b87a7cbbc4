# Image transformation latency (sourced by bench/storage.sh once a plinth
# runs at $PLINTH_URL): a 2000x1500 photo-like PNG in a public bucket, then
# /render/image/public at width 640 (what a template card asks for) as a
# browser would (Accept: image/webp): the first render (decode, resize,
# encode, cache write) and cached repeats (one read of the stored rendition),
# next to a plain download of the original.
bench_render() {
  local dir img key url n="${RENDER_ROUNDS:-10}"
  dir=$(mktemp -d)
  img="$dir/photo.png"
  python3 - "$img" <<'PY'
import math, struct, sys, zlib
w, h = 2000, 1500
rows = bytearray()
for y in range(h):
    rows.append(0)
    for x in range(w):
        v = int(127 + 60 * math.sin(x / 37.0) * math.cos(y / 23.0))
        rows += bytes(((x * 255 // w) ^ (v & 0x1f), (y * 255 // h + v) & 0xff, (x * y // 97 + v) & 0xff))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))
PY
  key="$SERVICE_ROLE_KEY"
  curl -sf -o /dev/null -X POST "$PLINTH_URL/storage/v1/bucket" -H "authorization: Bearer $key" \
    -H 'content-type: application/json' -d '{"id":"render-bench","name":"render-bench","public":true}'
  curl -sf -o /dev/null -X POST "$PLINTH_URL/storage/v1/object/render-bench/photo.png" \
    -H "authorization: Bearer $key" -H 'content-type: image/png' --data-binary "@$img"
  url="$PLINTH_URL/storage/v1/render/image/public/render-bench/photo.png?width=640&resize=cover"
  local first bytes cached=0 t original obytes
  read -r first bytes < <(curl -sf -o /dev/null -H 'accept: image/webp' -w '%{time_total} %{size_download}\n' "$url")
  for _ in $(seq 1 "$n"); do
    t=$(curl -sf -o /dev/null -H 'accept: image/webp' -w '%{time_total}' "$url")
    cached=$(python3 -c "print($cached + $t)")
  done
  read -r original obytes < <(curl -sf -o /dev/null -w '%{time_total} %{size_download}\n' \
    "$PLINTH_URL/storage/v1/object/public/render-bench/photo.png")
  python3 - "$first" "$cached" "$n" "$bytes" "$original" "$obytes" <<'PY'
import sys
first, cached, n, size, original, osize = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
print("image transformation (2000x1500 PNG -> width 640 WebP):")
print(f"  first render      {first * 1000:8.1f} ms  {size:>9} bytes")
print(f"  cached (mean {n:>2})  {cached / n * 1000:8.1f} ms")
print(f"  original download {original * 1000:8.1f} ms  {osize:>9} bytes")
PY
  rm -rf "$dir"
}
