#!/usr/bin/env bash
# The p99 of IP geolocation and elevation (1 and 50 points) over HTTP at
# concurrency 8 (issue 20), with the server on one core and wrk on the
# other: one command for a quiet machine.
#
#   bench/elev-p99.sh BINARY DATA
#   DURATION=15s RUNS=2 bench/elev-p99.sh bench/out/tessera /work/benchdata/services
#   bench/elev-p99.sh bench/out/tessera-before DATA bench/out/tessera-after DATA   # alternating
#
# BINARY is a tessera binary, DATA a data directory with the services' data
# (`tessera demo --services-only`, see bench/services.sh). With several
# BINARY DATA pairs the runs alternate between them (before, after, before,
# after...), so that both see the same machine. For each run it prints
# requests/s, bytes read per answer (a check that the answers are the
# service's), p50, p90, p99, p99.9 and max (bench/lua/report.lua) and the
# collector's cycles during the run (GODEBUG=gctrace=1): how many, their
# mark CPU (assist + background + idle, ms per cycle) and the live heap
# after them. The load average is printed before and after: on 2 shared
# cores the p99 measures the other processes as much as the server.
#
# Environment: DURATION (wrk -d, default 15s), RUNS (default 1), PORT
# (default 18090), SERVER_CPU / WRK_CPU (default 0 / 1), REQUESTS (default
# "geo elev elev50": the scripts of bench/lua), SERVER_ENV (extra
# environment for the server, e.g. "GOGC=off GOMEMLIMIT=8GiB").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if (($# < 2 || $# % 2 != 0)); then
	echo "usage: $0 BINARY DATA [BINARY DATA ...]" >&2
	exit 2
fi
for tool in wrk taskset curl; do
	command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 1; }
done
DURATION="${DURATION:-15s}"
RUNS="${RUNS:-1}"
PORT="${PORT:-18090}"
SERVER_CPU="${SERVER_CPU:-0}"
WRK_CPU="${WRK_CPU:-1}"
REQUESTS="${REQUESTS:-geo elev elev50}"
read -r -a server_env <<<"${SERVER_ENV:-}"
work="$(mktemp -d)"
pid=""
cleanup() {
	if [[ -n "$pid" ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# start BINARY DATA: the server pinned to SERVER_CPU, one P, its gctrace in
# $work/server.log; waits until it answers.
start() {
	if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then
		echo "$0: something already listens on port $PORT (set PORT)" >&2
		exit 1
	fi
	env GOMAXPROCS=1 GODEBUG=gctrace=1 TESSERA_TRUSTED_PROXIES=127.0.0.1 ${server_env[@]+"${server_env[@]}"} \
		taskset -c "$SERVER_CPU" "$1" serve --data "$2" --listen "127.0.0.1:$PORT" >"$work/server.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 300); do
		if curl -sf "http://127.0.0.1:$PORT/elevation/0,0.json" >/dev/null 2>&1; then
			# The coordinate systems index loads in the background: let it.
			for _ in $(seq 1 100); do
				grep -q "coordinate systems index" "$work/server.log" && break
				sleep 0.1
			done
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
		sleep 0.1
	done
	echo "$0: the server did not answer on port $PORT" >&2
	exit 1
}

stop() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
}

# gcsummary FROM: the gctrace lines after line FROM of the log.
gcsummary() {
	tail -n +"$(($1 + 1))" "$work/server.log" | awk '
	/^gc [0-9]+ @/ {
		n++
		split($0, f, ","); split(f[2], c, " "); split(c[1], parts, "+"); split(parts[2], m, "/")
		mark += m[1] + m[2] + m[3]
		for (i = 1; i <= NF; i++) if ($i ~ /->/) { split($i, h, "->"); live += h[3] }
	}
	END {
		if (n == 0) { printf "gc: none"; exit }
		printf "gc: %d cycles, mark %.2f cpu-ms/cycle, live %.0f MB", n, mark / n, live / n
	}'
}

echo "load before: $(uptime)"
printf '%-8s %-28s %7s %12s  %s\n' request binary req/s size "latency (wrk, $DURATION, 8 connections)"
for ((run = 1; run <= RUNS; run++)); do
	for req in $REQUESTS; do
		args=("$@")
		for ((i = 0; i < ${#args[@]}; i += 2)); do
			bin="${args[i]}" data="${args[i + 1]}"
			start "$bin" "$data"
			from="$(wc -l <"$work/server.log")"
			# A file, not <(...): wrk reads the script once for each Lua
			# state (its own and the thread's), and a pipe only once: the
			# thread would send GET / instead.
			cat "$root/bench/lua/$req.lua" "$root/bench/lua/report.lua" >"$work/$req.lua"
			out="$(taskset -c "$WRK_CPU" wrk -t1 -c8 -d"$DURATION" --latency \
				-s "$work/$req.lua" "http://127.0.0.1:$PORT")"
			gc="$(gcsummary "$from")"
			stop
			rps="$(awk '/^Requests\/sec/ {printf "%.0f", $2}' <<<"$out")"
			# Bytes read per answer, headers included: shows at a glance that
			# the answers are the service's (elevation of one point about
			# 215 B, geolocation about 540 B), not the index page's (2.3 KB).
			size="$(awk '/requests in/ {v = $5 + 0; u = $5; sub(/^[0-9.]+/, "", u)
				m = (u ~ /^KB/) ? 1024 : (u ~ /^MB/) ? 1048576 : (u ~ /^GB/) ? 1073741824 : 1
				printf "%.0fB/answer", v * m / $1}' <<<"$out")"
			lat="$(grep '^p50=' <<<"$out" | awk '{print $1, $2, $5, $7, $9}')"
			errs="$(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr '\n' ' ' || true)"
			printf '%-8s %-28s %7s %12s  %s  %s %s\n' "$req" "$(basename "$bin")" "$rps" "$size" "$lat" "$gc" "$errs"
		done
	done
done
echo "load after: $(uptime)"
