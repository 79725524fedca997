#!/bin/sh
# bench-image.sh: peak memory of cutting a large PNG into an image pyramid.
# Makes a SIDE x SIDE RGB PNG (default 20000) row by row with Python's zlib
# (never committed, written to a temporary folder), then runs
# `tessera image` on it under /usr/bin/time -v and prints the peak RSS.
# Usage: scripts/bench-image.sh [SIDE]   (needs bin/tessera: make build)
set -eu
side=${1:-20000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$side" "$dir/big.png" <<'PY'
import struct, sys, zlib
side, out = int(sys.argv[1]), sys.argv[2]
def chunk(f, typ, data):
    f.write(struct.pack(">I", len(data)) + typ + data + struct.pack(">I", zlib.crc32(typ + data) & 0xffffffff))
# 64 row patterns (gradients and stripes) cycled with a shift: a picture
# that compresses like a scan, not like a flat colour.
base = bytes((x * 7 + (x >> 5)) & 0xff for x in range(3 * side))
rows = [b"\x00" + base[i * 3:] + base[:i * 3] for i in range(64)]
with open(out, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n")
    chunk(f, b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
    z = zlib.compressobj(1)
    buf = []
    for y in range(side):
        buf.append(z.compress(rows[(y // 3) % 64]))
        if y % 256 == 255:
            chunk(f, b"IDAT", b"".join(buf)); buf = []
    buf.append(z.flush())
    chunk(f, b"IDAT", b"".join(buf))
    chunk(f, b"IEND", b"")
PY
ls -l "$dir/big.png" | awk '{print "PNG bytes:", $5}'
/usr/bin/time -v bin/tessera image --data "$dir/data" --id big "$dir/big.png" 2>"$dir/time.txt"
grep -E "Maximum resident|Elapsed|User time|System time" "$dir/time.txt"
ls -l "$dir/data/images/big.mbtiles" | awk '{print "MBTiles bytes:", $5}'
