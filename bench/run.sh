#!/usr/bin/env bash
# The tile serving benchmark: wrk (64 connections, random tile order) against
# nginx serving the tiles as static files, Tessera serving the same tiles from
# MBTiles, and Tessera serving them from PMTiles, alternating, in one run.
# Then start-up time and resident memory with 100 tilesets, and Go benchmarks.
# Results go to bench/out/results.md (copy the figures into docs/benchmarks.md).
#
#   bench/run.sh                 full run
#   DURATION=10s ROUNDS=2 bench/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
DURATION="${DURATION:-15s}"
ROUNDS="${ROUNDS:-3}"
CONNS="${CONNS:-64}"
THREADS="${THREADS:-2}"
bin="$root/bin/tessera"
mkdir -p "$out"
results="$out/results.md"

pids=()
cleanup() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	for f in nginx.pid nginx1.pid; do
		[[ -f "$out/$f" ]] && kill "$(cat "$out/$f")" 2>/dev/null || true
	done
}
trap cleanup EXIT

# 1. The tileset: the demo world (zooms 0-8, every tile present: land,
#    water, countries, boundaries, places).
# 2. The same bytes as files for nginx, and as a PMTiles archive.
. "$root/bench/world.sh"
bench_world
[[ -f "$out/world.pmtiles" ]] || "$bin" convert "$world" "$out/world.pmtiles"
rm -rf "$out/data-mb" "$out/data-pm" "$out/data-mb1"
mkdir -p "$out/data-mb/tiles" "$out/data-pm/tiles" "$out/data-mb1/tiles"
ln -f "$world" "$out/data-mb/tiles/world.mbtiles"
ln -f "$world" "$out/data-mb1/tiles/world.mbtiles" # each server its own state.db
# The MBTiles server also serves the demo's map, fonts and geocoding index.
for d in maps fonts geocoding; do
	[[ -d "$out/demo/$d" ]] && cp -r "$out/demo/$d" "$out/data-mb/$d"
done
ln -f "$out/world.pmtiles" "$out/data-pm/tiles/world.pmtiles"

# 3. The servers. nginx runs in two configurations, one worker per core
#    ("auto") and a single worker, because on a small machine where wrk
#    shares the cores one worker can be the faster; Tessera is compared with
#    the faster of the two. Tessera also runs once with GOMAXPROCS=1 to show
#    what leaving a core to wrk does for it.
nginx_conf() { # workers port pidfile
	cat <<NGINX
worker_processes $1;
worker_rlimit_nofile 20000;
pid $3;
error_log $out/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  open_file_cache max=8000 inactive=60s;
  server {
    listen 127.0.0.1:$2;
    root $out/static;
    location /tiles/ {
      default_type application/vnd.mapbox-vector-tile;
      add_header Content-Encoding gzip;
      etag on;
    }
  }
}
NGINX
}
ulimit -n 400000 2>/dev/null || ulimit -n 65536 2>/dev/null || true
nginx_conf auto 18080 "$out/nginx.pid" >"$out/nginx.conf"
nginx_conf 1 18079 "$out/nginx1.pid" >"$out/nginx1.conf"
nginx -c "$out/nginx.conf"
nginx -c "$out/nginx1.conf"
TESSERA_ADMIN_CREDENTIALS=bench "$bin" serve --data "$out/data-mb" --listen 127.0.0.1:18081 --watch=false >"$out/tessera-mb.log" 2>&1 &
pids+=($!)
mbpid=$!
TESSERA_ADMIN_CREDENTIALS=bench "$bin" serve --data "$out/data-pm" --listen 127.0.0.1:18082 --watch=false >"$out/tessera-pm.log" 2>&1 &
pids+=($!)
pmpid=$!
GOMAXPROCS=1 TESSERA_ADMIN_CREDENTIALS=bench "$bin" serve --data "$out/data-mb1" --listen 127.0.0.1:18084 --watch=false >"$out/tessera-mb1.log" 2>&1 &
pids+=($!)
for port in 18079 18080 18081 18082 18084; do
	for _ in $(seq 100); do
		curl -fs -o /dev/null "http://127.0.0.1:$port/tiles/world/0/0/0.pbf" && break
		sleep 0.1
	done
done

run_wrk() { # name port duration
	PATHS="$out/paths.txt" PREFIX="/tiles/world/" wrk -t"$THREADS" -c"$CONNS" -d"$3" --latency \
		-s "$root/bench/random.lua" "http://127.0.0.1:$2" >"$out/wrk-$1.txt" 2>&1
	local rps p99 non2xx
	rps=$(awk '/^Requests\/sec/ {print $2}' "$out/wrk-$1.txt")
	p99=$(awk '$1=="99%" {print $2}' "$out/wrk-$1.txt")
	non2xx=$(awk '/Non-2xx/ {print $NF}' "$out/wrk-$1.txt")
	echo "$1 $rps $p99 ${non2xx:-0}"
}

# Every server must serve the tileset before anything is measured.
for port in 18079 18080 18081 18082 18084; do
	if ! curl -fs -o /dev/null "http://127.0.0.1:$port/tiles/world/0/0/0.pbf"; then
		echo "bench: the server on port $port does not serve the tileset" >&2
		exit 1
	fi
done
# Warm up every server (file caches, tile cache, page cache) once.
servers=("nginx-auto 18080" "nginx-1 18079" "mbtiles 18081" "pmtiles 18082" "mbtiles-gomaxprocs1 18084")
for s in "${servers[@]}"; do
	set -- $s
	run_wrk "warm-$1" "$2" 10s >/dev/null
done
: >"$out/rounds.txt"
for r in $(seq "$ROUNDS"); do
	for s in "${servers[@]}"; do
		set -- $s
		run_wrk "$1" "$2" "$DURATION" | sed "s/^/$r /" | tee -a "$out/rounds.txt"
	done
done
# Single-URL runs: a cached tile, the served style, a warm glyph range.
run_url() { # name url
	wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H 'Accept-Encoding: gzip' "$2" >"$out/wrk-$1.txt" 2>&1
	echo "$1 $(awk '/^Requests\/sec/ {print $2}' "$out/wrk-$1.txt") $(awk '$1=="99%" {print $2}' "$out/wrk-$1.txt") $(awk '/Non-2xx/ {print $NF}' "$out/wrk-$1.txt")"
}
: >"$out/urls.txt"
if curl -fs -o /dev/null "http://127.0.0.1:18081/maps/world/style.json"; then
	run_url tile "http://127.0.0.1:18081/tiles/world/4/8/5.pbf" | tee -a "$out/urls.txt"
	run_url style "http://127.0.0.1:18081/maps/world/style.json" | tee -a "$out/urls.txt"
	run_url glyphs "http://127.0.0.1:18081/fonts/Noto%20Sans%20Regular/0-255.pbf" | tee -a "$out/urls.txt"
fi
geo=""
if curl -fs -o /dev/null "http://127.0.0.1:18081/geocoding/paris.json" && [[ -f "$root/../shared/geocode-eval/queries.jsonl" ]]; then
	"$bin" geocode eval --url http://127.0.0.1:18081 --queries "$root/../shared/geocode-eval/queries.jsonl" >"$out/geocode-eval.txt" 2>&1 || true
	geo=yes
fi

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Anonymous (heap, stacks) and file-backed (mapped PMTiles, binary) parts.
rss_parts() { awk '/RssAnon/ {a=$2} /RssFile/ {f=$2} END {printf "anonymous %d MB, file-backed %d MB", a/1024, f/1024}' "/proc/$1/status"; }
mbrss=$(rss_kb "$mbpid")
pmrss=$(rss_kb "$pmpid")
mbparts=$(rss_parts "$mbpid")
pmparts=$(rss_parts "$pmpid")
kill "$mbpid" "$pmpid" 2>/dev/null || true
kill "$(cat "$out/nginx.pid")" "$(cat "$out/nginx1.pid")" 2>/dev/null || true

# 4. Start-up and memory with 100 tilesets (50 MBTiles, 50 PMTiles: hard links).
rm -rf "$out/data-100"
mkdir -p "$out/data-100/tiles"
for i in $(seq -w 1 50); do
	ln -f "$world" "$out/data-100/tiles/world$i.mbtiles"
	ln -f "$out/world.pmtiles" "$out/data-100/tiles/pm$i.pmtiles"
done
# First start records the 100 tilesets in state.db; the second is the one timed.
for attempt in first timed; do
	start=$(date +%s.%N)
	TESSERA_ADMIN_CREDENTIALS=bench "$bin" serve --data "$out/data-100" --listen 127.0.0.1:18083 --watch=false >"$out/tessera-100.log" 2>&1 &
	pid=$!
	until curl -fs -o /dev/null http://127.0.0.1:18083/health; do sleep 0.01; done
	ready=$(date +%s.%N)
	startup=$(echo "$ready - $start" | bc)
	if [[ $attempt == timed ]]; then
		# Touch every tileset, then read the resident memory under load.
		for i in $(seq -w 1 50); do
			curl -fs -o /dev/null "http://127.0.0.1:18083/tiles/world$i/3/4/2.pbf" -H 'Accept-Encoding: gzip'
			curl -fs -o /dev/null "http://127.0.0.1:18083/tiles/pm$i/3/4/2.pbf" -H 'Accept-Encoding: gzip'
		done
		PATHS="$out/paths.txt" PREFIX="/tiles/world07/" wrk -t2 -c64 -d10s -s "$root/bench/random.lua" http://127.0.0.1:18083 >"$out/wrk-100.txt" 2>&1
		rss100=$(rss_kb "$pid")
		parts100=$(rss_parts "$pid")
		logged=$(grep -o 'startup=[0-9.a-zµ]*' "$out/tessera-100.log" | head -1)
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null || true
done

# 5. Summary.
{
	echo "# Tile serving benchmark ($(date -u +%Y-%m-%d), $(nproc) cores)"
	echo
	echo "Tileset: demo world, $ntiles vector tiles (gzip MVT). wrk -t$THREADS -c$CONNS -d$DURATION, random order, Accept-Encoding: gzip."
	echo
	echo "| round | server | requests/s | p99 latency | non-2xx |"
	echo "|---|---|---|---|---|"
	awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$out/rounds.txt"
	echo
	awk '{s[$2]+=$3; n[$2]++} END {for (k in s) printf "mean %s %.0f\n", k, s[k]/n[k]}' "$out/rounds.txt" | sort >"$out/means.txt"
	ngauto=$(awk '$2=="nginx-auto" {print $3}' "$out/means.txt")
	ng1=$(awk '$2=="nginx-1" {print $3}' "$out/means.txt")
	ng=$ngauto
	best="nginx-auto"
	if ((ng1 > ngauto)); then ng=$ng1 best="nginx-1"; fi
	echo "- nginx: worker_processes auto $ngauto requests/s, worker_processes 1 $ng1 requests/s; the faster ($best) is the reference"
	for k in mbtiles pmtiles mbtiles-gomaxprocs1; do
		v=$(awk -v k=$k '$2==k {print $3}' "$out/means.txt")
		echo "- $k: mean $v requests/s = $(echo "scale=2; $v / $ng" | bc) of $best ($ng), $(echo "scale=2; $v / $ngauto" | bc) of nginx-auto"
	done
	echo "- resident memory after the load run: MBTiles server $((mbrss / 1024)) MB ($mbparts), PMTiles server $((pmrss / 1024)) MB ($pmparts)"
	if [[ -s "$out/urls.txt" ]]; then
		echo
		echo "Single URLs against the MBTiles server (requests/s, p99):"
		awk '{printf "- %s: %s requests/s, p99 %s\n", $1, $2, $3}' "$out/urls.txt"
	fi
	if [[ -n "$geo" ]]; then
		echo
		echo "Geocoding evaluation through HTTP (the MBTiles server, demo index):"
		echo '```'
		cat "$out/geocode-eval.txt"
		echo '```'
	fi
	echo "- 100 tilesets (50 MBTiles + 50 PMTiles): ready in ${startup}s (server log: $logged), resident memory $((rss100 / 1024)) MB ($parts100) after a load run"
} | tee "$results"

# 6. Go benchmarks of the hot paths (one run each; see docs/benchmarks.md).
go test -run '^$' -bench . -benchmem -benchtime 1s \
	./internal/tilecache ./internal/pmtiles ./internal/httpapi/server ./internal/glyphs ./internal/style/expr ./internal/sprite \
	>"$out/go-bench.txt" 2>&1 || true
grep -E '^(Benchmark|ok|FAIL)' "$out/go-bench.txt" | tee -a "$results"
