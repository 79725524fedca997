#!/usr/bin/env bash
# The map image benchmark (issue 10), on the demo world's map:
#   1. a cached raster tile against a cached vector tile (wrk, one URL each);
#   2. cold rendering: zooms 0-6 of the map in 512-px tiles (5,461 tiles)
#      pre-rendered by `tessera render`, tiles per second;
#   3. a 1024x768@2x static map with 10 markers and a 500-point path,
#      rendered 30 times one after the other: p50 and p90;
#   4. a 60 s load run of random uncached 512-px tiles at zooms 0-8 with 64
#      connections: requests/s, answers by status, resident memory.
# Results go to bench/out/images.md.
#
#   bench/images.sh                  (after bench/run.sh, or alone)
#   DURATION=10s LOAD=20s bench/images.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
bin="$root/bin/tessera"
DURATION="${DURATION:-15s}"
COLD_ZOOMS="${COLD_ZOOMS:-0-6}"
LOAD="${LOAD:-60s}"
mkdir -p "$out"
results="$out/images.md"

pids=()
cleanup() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	for f in "$out/nginx-images1.pid" "$out/nginx-images.pid"; do [[ -f "$f" ]] && kill "$(cat "$f")" 2>/dev/null || true; done
}
trap cleanup EXIT

demo="$out/demo"
if [[ ! -f "$demo/tiles/world.mbtiles" ]]; then
	"$bin" demo --data "$demo" --cache "$root/.cache/opendata"
fi
data="$out/data-images"
rm -rf "$data"
mkdir -p "$data/tiles"
ln -f "$demo/tiles/world.mbtiles" "$data/tiles/world.mbtiles"
cp -r "$demo/maps" "$demo/fonts" "$data/"

# 2. Cold rendering, first, on a quiet machine.
start=$(date +%s.%N)
"$bin" render --data "$data" --map world --zooms "${COLD_ZOOMS:-0-6}" --tile-size 512 -o "$out/world-cold.pmtiles" >"$out/prerender.txt" 2>/dev/null
cold=$(echo "$(date +%s.%N) - $start" | bc)
# Throughput against cores: zooms 0-5 (1,365 tiles) on one core, then on all.
scaling=""
for procs in 1 $(nproc); do
	GOMAXPROCS=$procs "$bin" render --data "$data" --map world --zooms 0-5 --tile-size 512 -o "$out/world-scale.pmtiles" >"$out/prerender-$procs.txt" 2>/dev/null
	scaling="$scaling $procs core(s): $(grep -o '[0-9.]* tiles/s' "$out/prerender-$procs.txt");"
done

# The server.
port=18090
TESSERA_ADMIN_CREDENTIALS=bench TESSERA_GEOCODING_INDEX=none "$bin" serve --data "$data" --listen 127.0.0.1:$port --watch=false >"$out/tessera-images.log" 2>&1 &
pid=$!
pids+=($pid)
until curl -fs -o /dev/null "http://127.0.0.1:$port/health"; do sleep 0.05; done

# 1. Cached raster tile against cached vector tile.
# Also the server's own CPU time per answer (user and system, from
# /proc/PID/stat, over the run): what serving one costs the server, apart
# from wrk's reading of the bytes on the same cores.
server_cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
run_url() { # name url
	curl -fs -o /dev/null "$2"
	local c0 c1 n
	c0=$(server_cpu_ticks)
	wrk -t2 -c64 -d"$DURATION" --latency -H 'Accept-Encoding: gzip' "$2" >"$out/wrk-$1.txt" 2>&1
	c1=$(server_cpu_ticks)
	n=$(awk '/requests in/ {print $1}' "$out/wrk-$1.txt")
	echo "$1 $(awk '/^Requests\/sec/ {print $2}' "$out/wrk-$1.txt") $(awk '$1=="99%" {print $2}' "$out/wrk-$1.txt") $(((c1 - c0) * 1000000 / $(getconf CLK_TCK) / n))"
}
vec=$(run_url vector-tile "http://127.0.0.1:$port/tiles/world/4/8/5.pbf")
ras=$(run_url raster-tile "http://127.0.0.1:$port/maps/world/4/8/5.png")

# The same two answers' bytes served by nginx as static files (one worker
# and one per core; the faster is kept): what serving that many bytes costs
# here, whoever serves them.
files="$out/imgstatic"
rm -rf "$files" && mkdir -p "$files/t"
curl -fs -H 'Accept-Encoding: gzip' -o "$files/t/v.pbf" "http://127.0.0.1:$port/tiles/world/4/8/5.pbf"
curl -fs -o "$files/t/r.png" "http://127.0.0.1:$port/maps/world/4/8/5.png"
vbytes=$(stat -c %s "$files/t/v.pbf")
rbytes=$(stat -c %s "$files/t/r.png")
nginx_images_conf() { # workers port pidfile
	cat <<NGINX
worker_processes $1;
pid $3;
error_log $out/nginx-images-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  open_file_cache max=100 inactive=60s;
  server {
    listen 127.0.0.1:$2;
    root $files;
    location = /t/v.pbf { default_type application/vnd.mapbox-vector-tile; add_header Content-Encoding gzip; etag on; }
    location = /t/r.png { default_type image/png; etag on; }
  }
}
NGINX
}
best_nginx() { # name path: the faster nginx configuration's requests/s
	local best=0
	for conf in 18091:1 18092:auto; do
		wrk -t2 -c64 -d"$DURATION" -H 'Accept-Encoding: gzip' "http://127.0.0.1:${conf%%:*}$2" >"$out/wrk-nginx-$1-${conf#*:}.txt" 2>&1 || true
		rps=$(awk '/^Requests\/sec/ {print int($2)}' "$out/wrk-nginx-$1-${conf#*:}.txt")
		((${rps:-0} > best)) && best=$rps
	done
	echo $best
}
if command -v nginx >/dev/null; then
	nginx_images_conf 1 18091 "$out/nginx-images1.pid" >"$out/nginx-images1.conf"
	nginx_images_conf auto 18092 "$out/nginx-images.pid" >"$out/nginx-images.conf"
	nginx -c "$out/nginx-images1.conf" && nginx -c "$out/nginx-images.conf"
	ngvec=$(best_nginx vector /t/v.pbf)
	ngras=$(best_nginx raster /t/r.png)
	kill "$(cat "$out/nginx-images1.pid")" "$(cat "$out/nginx-images.pid")" 2>/dev/null || true
fi

# 3. Static map: 10 markers, a 500-point path (encoded), 1024x768@2x.
path=$(python3 - <<'PY'
import math
pts = [(2.35 + 11 * i / 499, 48.85 + 3.6 * i / 499 + 0.6 * math.sin(i / 20)) for i in range(500)]
def enc(v):
    v = ~(v << 1) if v < 0 else v << 1
    s = ""
    while v >= 0x20:
        s += chr((0x20 | (v & 0x1f)) + 63); v >>= 5
    return s + chr(v + 63)
out, plat, plon = "", 0, 0
for lon, lat in pts:
    la, lo = round(lat * 1e5), round(lon * 1e5)
    out += enc(la - plat) + enc(lo - plon); plat, plon = la, lo
import urllib.parse
print(urllib.parse.quote("stroke:red|width:4|enc:" + out, safe=""))
PY
)
markers=""
for i in $(seq 0 9); do markers="$markers&markers=$(echo "2.35+$i*1.1" | bc),$(echo "48.85+$i*0.36" | bc),$i"; done
static="http://127.0.0.1:$port/maps/world/static/auto/1024x768@2x.png?path=$path$markers"
: >"$out/static-times.txt"
for i in $(seq 30); do
	curl -fs -o /dev/null -w '%{time_total}\n' "$static&i=$i" >>"$out/static-times.txt"
done
p50=$(sort -n "$out/static-times.txt" | awk '{a[NR]=$1} END {printf "%.0f", a[int(NR*0.5)+1]*1000}')
p90=$(sort -n "$out/static-times.txt" | awk '{a[NR]=$1} END {printf "%.0f", a[int(NR*0.9)]*1000}')

# 4. 1,000 random distinct 512-px tiles of zooms 0-8, rendered by the
#    server (uncached: each is asked once), 8 requests at a time: tiles per
#    second and the server's peak resident memory.
python3 - "$out/map-paths.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for z in range(9):
        for x in range(2 ** z):
            for y in range(2 ** z):
                f.write(f"{z}/{x}/{y}.png\n")
PY
shuf -n 1000 --random-source=<(yes) "$out/map-paths.txt" | sed "s#^#http://127.0.0.1:$port/maps/world/#" >"$out/random-1000.txt"
start=$(date +%s.%N)
xargs -P 8 -I{} curl -fs -o /dev/null {} <"$out/random-1000.txt" &
xpid=$!
rpeak=0
while kill -0 $xpid 2>/dev/null; do
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	((rss > rpeak)) && rpeak=$rss
	sleep 0.2
done
wait $xpid || true
random_secs=$(echo "$(date +%s.%N) - $start" | bc)
random_tps=$(echo "scale=1; 1000 / $random_secs" | bc)

# 5. Load: random uncached 512-px tiles at zooms 0-8.
before=$(curl -fs "http://127.0.0.1:$port/metrics" | grep '^tessera_http_requests_total' | grep 'maps/{mapId}/{z}' || true)
PATHS="$out/map-paths.txt" PREFIX="/maps/world/" wrk -t2 -c64 -d"$LOAD" --latency -s "$root/bench/random.lua" "http://127.0.0.1:$port" >"$out/wrk-map-load.txt" 2>&1 &
wrkpid=$!
peak=0
while kill -0 $wrkpid 2>/dev/null; do
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	((rss > peak)) && peak=$rss
	sleep 1
done
loadrps=$(awk '/^Requests\/sec/ {print $2}' "$out/wrk-map-load.txt")
statuses=$(curl -fs "http://127.0.0.1:$port/metrics" | grep '^tessera_http_requests_total' | grep 'maps/{mapId}/{z}' | sed -E 's/.*code="([0-9]+)".* ([0-9.e+]+)$/\1: \2/' | tr '\n' ' ')

{
	echo "# Map image benchmark ($(date -u +%Y-%m-%d), $(nproc) cores)"
	echo
	echo "- cold rendering: zooms $COLD_ZOOMS of the demo map in 512-px PNG tiles, \`tessera render --map world --zooms $COLD_ZOOMS --tile-size 512\`: $(cat "$out/prerender.txt") (wall $cold s including start-up)"
	set -- $vec
	echo "- cached vector tile /tiles/world/4/8/5.pbf: $2 requests/s, p99 $3, server CPU $4 µs per answer"
	set -- $ras
	echo "- cached raster tile /maps/world/4/8/5.png: $2 requests/s, p99 $3, server CPU $4 µs per answer"
	[[ -n "${ngvec:-}" ]] && echo "- the same bytes from nginx (static files, the faster of 1 worker and 1 per core): vector tile ($vbytes bytes gzip) $ngvec requests/s, raster tile ($rbytes bytes) $ngras requests/s"
	echo "- pre-rendering zooms 0-5 (1,365 512-px tiles) against cores:$scaling"
	echo "- 1,000 random distinct 512-px tiles z0-8 rendered by the server, 8 requests at a time: $random_secs s, $random_tps tiles/s; peak resident memory $((rpeak / 1024)) MB"
	echo "- static map 1024x768@2x, 10 markers, 500-point path (30 requests one at a time): p50 ${p50} ms, p90 ${p90} ms"
	echo "- load: random uncached 512-px tiles z0-8 (87,381 URLs), wrk -t2 -c64 -d$LOAD: $loadrps requests/s; answers by status: $statuses; peak resident memory $((peak / 1024)) MB"
} | tee "$results"
