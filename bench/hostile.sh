#!/usr/bin/env bash
# The hostile-load benchmark (issue 17), on the demo world's map: plain
# requests (the cached raster tile and the vector tile 4/8/5, 4 clients)
# measured on a quiet server, then while 6 clients send 30 hostile requests
# (2048x2048@2x static maps with wide filled paths and 30 labelled
# markers, WMS GetMap at 2534x2534, static maps whose 20 marker icons come
# from a loopback server that never answers), then on the quiet server
# again. Two configurations: render_workers 0 (cores - 1) and one worker
# per core (sharing the same processor slots, see internal/cpuslots). Each
# is run RUNS times (default 3); results go to bench/out/hostile.md.
# Loopback only.
#
#   bench/hostile.sh                 (after bench/run.sh or bench/images.sh, or alone)
#   DATA=/tmp/demo RUNS=1 bench/hostile.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
bin="$root/bin/tessera"
RUNS="${RUNS:-3}"
TIMEOUT="${TIMEOUT:-5s}"
mkdir -p "$out"
results="$out/hostile.md"
[[ -x "$bin" ]] || go build -o "$bin" ./cmd/tessera
go build -o "$out/hostile" ./bench/hostile

data="${DATA:-$out/demo}"
if [[ ! -f "$data/tiles/world.mbtiles" ]]; then
	"$bin" demo --data "$data" --cache "$root/.cache/opendata"
fi

pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; }
trap cleanup EXIT
port=18091
metrics=""

{
	echo "render_timeout $TIMEOUT, $(nproc) cores, $(date -u +%Y-%m-%d)"
	echo
	echo "| configuration | plain, quiet | plain, under hostile load | p99 ratio | plain, quiet after | hostile answers |"
	echo "|---|---|---|---|---|---|"
} >"$results"
for workers in 0 "$(nproc)"; do
	TESSERA_REMOTE_ALLOW=127.0.0.0/8 TESSERA_RENDER_TIMEOUT="$TIMEOUT" TESSERA_RENDER_WORKERS=$workers \
		TESSERA_GEOCODING_INDEX=none "$bin" serve --data "$data" --listen 127.0.0.1:$port --watch=false >"$out/tessera-hostile.log" 2>&1 &
	pid=$!
	until curl -fs -o /dev/null "http://127.0.0.1:$port/health"; do sleep 0.05; done
	name="render_workers $workers (one per core)"
	[[ $workers == 0 ]] && name="render_workers 0 (cores - 1)"
	for run in $(seq 1 "$RUNS"); do
		"$out/hostile" -base "http://127.0.0.1:$port" -label "$name, run $run" | tee -a "$results"
	done
	metrics="$metrics$name: $(curl -fs "http://127.0.0.1:$port/metrics" | grep -E '^tessera_render(s_refused|_timeouts|_panics)_total' | tr '\n' ' ')
"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
done
printf '\nCounted by the server over its runs:\n\n%s' "$metrics" >>"$results"
cat "$results"
