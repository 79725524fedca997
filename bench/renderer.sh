#!/usr/bin/env bash
# The renderer benchmark (issue 9): the dense street view of
# ../shared/bench/street-style.json (4 z14 tiles of Berlin, 512x512, PNG
# written), drawn
#   - by MapLibre GL JS in headless Chromium with software GL (a new map in a
#     loaded page, until idle, plus PNG encoding of the canvas), the reference;
#   - by a new `tessera render` process each time (cold: empty caches);
#   - warm, in one process (Go benchmark BenchmarkStreetStyle).
# Side by side in one run; results in bench/out/renderer.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
shared="${SHARED:-$root/../shared}"
out="$root/bench/out"
RUNS="${RUNS:-7}"
mkdir -p "$out"
style="$shared/bench/street-style.json"
if [[ ! -f "$style" ]]; then
	echo "renderer bench: $style is missing (../shared)" >&2
	exit 1
fi
shared="$(cd "$shared" && pwd)"

# The reference's packages: MapLibre GL JS 6.17 (the version of the shared
# reference timing) and playwright-core.
npmdir="$root/.cache/npm-bench"
if [[ ! -d "$npmdir/node_modules/maplibre-gl" || ! -d "$npmdir/node_modules/playwright-core" ]]; then
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$npmdir" --no-audit --no-fund --ignore-scripts --save-exact \
		maplibre-gl@6.17.0 playwright-core@1.65.1 >/dev/null
fi
ref=$(PLAYWRIGHT_CORE_DIR="$npmdir/node_modules/playwright-core" MAPLIBRE_DIR="$npmdir/node_modules/maplibre-gl" \
	node bench/renderer.mjs "$style" "$shared/render-tests" 512 512 "$RUNS")

# Tessera, cold: a new process per picture; local:// rewritten to file://.
sed "s#local://#file://$shared/render-tests/#g" "$style" >"$out/street-style-file.json"
: >"$out/tessera-cold.txt"
for i in $(seq 0 "$RUNS"); do
	start=$(date +%s%N)
	"$root/bin/tessera" render --style "$out/street-style-file.json" -o "$out/street-tessera.png" >/dev/null 2>&1
	end=$(date +%s%N)
	((i > 0)) && echo $(((end - start) / 1000000)) >>"$out/tessera-cold.txt"
done

# Tessera, warm.
warm=$(cd "$root" && go test -run '^$' -bench 'BenchmarkStreetStyle' -benchtime 20x ./internal/render 2>/dev/null | awk '/^BenchmarkStreetStyle/ {print $3/1e6 " ms"}')

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
refmed=$(echo "$ref" | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"]; r.sort(); print(r[(len(r)-1)//2])')
refver=$(echo "$ref" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
coldmed=$(median <"$out/tessera-cold.txt")
{
	echo "# Renderer benchmark ($(date -u +%Y-%m-%d), $(nproc) cores)"
	echo
	echo "Dense street view (../shared/bench/street-style.json, 512x512, PNG written), $RUNS runs after a warm-up:"
	echo
	echo "- MapLibre GL JS $refver in headless Chromium (SwiftShader), a new map each run until idle plus PNG encoding: median $refmed ms (runs: $(echo "$ref" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"])'))"
	echo "- tessera render, a new process each run (cold): median $coldmed ms (runs: $(tr '\n' ' ' <"$out/tessera-cold.txt")); $(echo "scale=1; $refmed / $coldmed" | bc) times faster"
	echo "- warm, in one process (render + PNG): ${warm:-not measured}"
} | tee "$out/renderer.md"
