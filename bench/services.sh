#!/usr/bin/env bash
# The services' latencies (issue 20) in one run: IP geolocation, elevation
# (1 and 50 locations), coordinate search, a 50-point coordinate transform
# and weather latest.json, each at concurrency 8 (8 goroutines, each waiting
# for its answer before the next request), over loopback HTTP and straight
# into the server's handler (every middleware, no client or network stack).
# Prints a table of p50 and p99 (the range over RUNS runs) with the load
# average before and after, and writes it to bench/out/services.md. Run it on
# a quiet machine: on 2 shared cores the p99 is mostly time spent waiting for
# a core.
#
#   bench/services.sh
#   DATA=/tmp/svc N=20000 RUNS=3 bench/services.sh
#
# DATA (default bench/out/services) is made by `tessera demo --services-only`
# when it lacks the services' data (packages from .cache/opendata, fetched
# when missing). Transforms need the build tag proj (libproj-dev and
# pkg-config): without it the transform row is skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
mkdir -p "$out"
DATA="${DATA:-$out/services}"
N="${N:-40000}"
RUNS="${RUNS:-2}"
tags=()
if pkg-config --exists proj 2>/dev/null; then
	tags=(-tags proj)
fi
bin="$out/tessera-services"
go build "${tags[@]}" -o "$bin" ./cmd/tessera
if [[ ! -f "$DATA/elevation/etopo5.nc" || ! -f "$DATA/geolocation/tables.json" || ! -d "$DATA/weather" ]]; then
	"$bin" demo --services-only --data "$DATA" --cache "$root/.cache/opendata"
fi
go test "${tags[@]}" -c -o "$out/server.test" ./internal/httpapi/server
raw="$out/services-raw.txt"
load_before="$(uptime)"
(cd internal/httpapi/server && TESSERA_SERVICES_DATA="$DATA" "$out/server.test" \
	-test.run '^$' -test.bench 'ServicesLoad' -test.benchtime "${N}x" -test.count "$RUNS") | tee "$raw"
load_after="$(uptime)"

# One row per request: p50 and p99 over HTTP and in the handler (min-max
# over the runs), the process's CPU per request over HTTP (server and client).
table="$(awk -v runs="$RUNS" '
function range(k) {
	if (!(k in lo)) return "-"
	if (lo[k] == hi[k]) return lo[k] " ms"
	return lo[k] "-" hi[k] " ms"
}
/^BenchmarkServicesLoad\// {
	split($1, p, "/"); mode = p[2]; name = p[3]; sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; order[++n] = name }
	for (i = 3; i < NF; i++) {
		unit = $(i + 1)
		if (unit != "p50-ms" && unit != "p99-ms" && unit != "cpu-ms/op") continue
		k = mode SUBSEP name SUBSEP unit; v = $i + 0
		if (!(k in lo) || v < lo[k]) lo[k] = v
		if (!(k in hi) || v > hi[k]) hi[k] = v
	}
}
/--- SKIP: BenchmarkServicesLoad\// { split($3, p, "/"); skipped[p[3]] = 1 }
END {
	target["geolocation"] = "2 ms"; target["geolocation_elevation"] = "2 ms"
	target["elevation_1"] = "2 ms"; target["elevation_50"] = "2 ms"
	target["coordinates_search"] = "20 ms"; target["coordinates_transform50"] = "5 ms"
	target["weather_latest"] = "-"
	print "| request | http p50 | http p99 | handler p50 | handler p99 | cpu-ms per http request | p99 target |"
	print "|---|---|---|---|---|---|---|"
	for (j = 1; j <= n; j++) {
		m = order[j]
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", m, range("http" SUBSEP m SUBSEP "p50-ms"), range("http" SUBSEP m SUBSEP "p99-ms"),
			range("handler" SUBSEP m SUBSEP "p50-ms"), range("handler" SUBSEP m SUBSEP "p99-ms"), range("http" SUBSEP m SUBSEP "cpu-ms/op"), target[m]
	}
	for (m in skipped) if (!(m in seen)) printf "| %s | skipped (see %s) | | | | | %s |\n", m, "services-raw.txt", target[m]
}' "$raw")"
{
	echo "bench/services.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $N requests per row, $RUNS runs, build tags: ${tags[*]:-none}"
	echo
	echo "before: $load_before"
	echo "after:  $load_after"
	echo
	echo "$table"
} | tee "$out/services.md"
