#!/usr/bin/env bash
# Tile rate with API keys required versus off (issue 18): two Tessera servers
# over the same demo world tileset (each its own data directory and state),
# one with api_keys: off and one with api_keys: required, and wrk against
# each in turn with the same requests: random tiles, each with ?key= of a key
# restricted to the origins *.example.com and example.org and the user agent
# "Mozilla/", a matching Origin and User-Agent. The keyed server checks the
# key (origin rule, user-agent rule) and counts the request by key; the other
# ignores the key and counts the request without one. Rounds alternate which
# server goes first (off, keys, keys, off, ...), so that a change in the
# machine's load falls on both. Besides the rates, the CPU time each server
# spent per request answered (from /proc/PID/stat) is recorded: on a machine
# shared with other work the rate follows the load, the CPU per request much
# less. Results go to bench/out/keys.md.
#
#   bench/keys.sh                          5 rounds of 10 s per server
#   ROUNDS=3 DURATION=5s bench/keys.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/bench/out"
DURATION="${DURATION:-10s}"
ROUNDS="${ROUNDS:-5}"
CONNS="${CONNS:-64}"
THREADS="${THREADS:-2}"
bin="$root/bin/tessera"
mkdir -p "$out"
results="$out/keys.md"

pids=()
cleanup() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

. "$root/bench/world.sh"
bench_world
rm -rf "$out/data-keys-off" "$out/data-keys-required"
for mode in off required; do
	mkdir -p "$out/data-keys-$mode/tiles"
	ln -f "$world" "$out/data-keys-$mode/tiles/world.mbtiles"
done
declare -A port=([off]=18091 [required]=18092) pid
for mode in off required; do
	TESSERA_API_KEYS=$mode TESSERA_ADMIN_CREDENTIALS=bench "$bin" serve --data "$out/data-keys-$mode" \
		--listen "127.0.0.1:${port[$mode]}" --watch=false >"$out/tessera-keys-$mode.log" 2>&1 &
	pids+=($!)
	pid[$mode]=$!
done
for mode in off required; do
	for _ in $(seq 200); do
		curl -fs -o /dev/null "http://127.0.0.1:${port[$mode]}/health" && break
		sleep 0.1
	done
done

# A service token (admin API), then the key (account API) on the keyed server.
base="http://127.0.0.1:${port[required]}"
token=$(curl -fsS -X POST -H 'Authorization: Basic bench' -H 'Content-Type: application/json' -d '{"name":"bench"}' \
	"$base/v1/admin/tokens" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
key=$(curl -fsS -X POST -H "Authorization: Token $token" -H 'Content-Type: application/json' \
	-d '{"name":"bench","origins":["*.example.com","example.org"],"user_agent":"Mozilla/"}' \
	"$base/v1/api_keys" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
if [[ -z "$token" || -z "$key" ]]; then
	echo "bench: could not make a key on the keyed server" >&2
	exit 1
fi
origin='Origin: https://maps.example.com'
agent='User-Agent: Mozilla/5.0 (X11; Linux x86_64) tessera-bench'
tile="/tiles/world/4/8/5.pbf"
# The keyed server refuses a tile without the key and serves it with it; the
# other serves it either way.
check() { # expected-status port query
	local got
	got=$(curl -s -o /dev/null -w '%{http_code}' -H "$origin" -H "$agent" "http://127.0.0.1:$2$tile$3")
	if [[ $got != "$1" ]]; then
		echo "bench: $tile$3 on port $2 answered $got, want $1" >&2
		exit 1
	fi
}
check 403 "${port[required]}" ""
check 200 "${port[required]}" "?key=$key"
check 200 "${port[off]}" "?key=$key"

# cpu_ticks prints the user plus system CPU time of a process, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

run_wrk() { # mode duration: prints "mode requests/s p99 non-2xx cpu-µs-per-request"
	local t0 t1 rps p99 non2xx n
	t0=$(cpu_ticks "${pid[$1]}")
	PATHS="$out/paths.txt" PREFIX="/tiles/world/" QUERY="?key=$key" wrk -t"$THREADS" -c"$CONNS" -d"$2" --latency \
		-H "$origin" -H "$agent" -s "$root/bench/random.lua" "http://127.0.0.1:${port[$1]}" >"$out/wrk-keys-$1.txt" 2>&1
	t1=$(cpu_ticks "${pid[$1]}")
	rps=$(awk '/^Requests\/sec/ {print $2}' "$out/wrk-keys-$1.txt")
	p99=$(awk '$1=="99%" {print $2}' "$out/wrk-keys-$1.txt")
	non2xx=$(awk '/Non-2xx/ {print $NF}' "$out/wrk-keys-$1.txt")
	n=$(awk '/requests in/ {print $1}' "$out/wrk-keys-$1.txt")
	echo "$1 $rps $p99 ${non2xx:-0} $(echo "scale=1; ($t1 - $t0) * 1000000 / $hz / $n" | bc)"
}

load_before=$(uptime)
for mode in off required; do run_wrk "$mode" 10s >/dev/null; done # warm-up
: >"$out/keys-rounds.txt"
for r in $(seq "$ROUNDS"); do
	order=(off required)
	((r % 2 == 0)) && order=(required off)
	for mode in "${order[@]}"; do
		run_wrk "$mode" "$DURATION" | sed "s/^/$r /" | tee -a "$out/keys-rounds.txt"
	done
done
load_after=$(uptime)
counted=$(curl -fsS -H "Authorization: Token $token" \
	"$base/v1/analytics/api_usage/top?period=past_30_days&classifier=api_keys&group=request&limit=1" || true)

{
	echo "# Tile rate with API keys required versus off ($(date -u +%Y-%m-%d), $(nproc) cores)"
	echo
	echo "Tileset: demo world, $ntiles vector tiles. wrk -t$THREADS -c$CONNS -d$DURATION, random order, ?key=, Origin and User-Agent on every request."
	echo "Load before: $load_before"
	echo "Load after:  $load_after"
	echo
	echo "| round | api_keys | requests/s | p99 latency | non-2xx | server CPU per request |"
	echo "|---|---|---|---|---|---|"
	awk '{printf "| %s | %s | %s | %s | %s | %s µs |\n", $1, $2, $3, $4, $5, $6}' "$out/keys-rounds.txt"
	echo
	# The ratio of each round (required / off), then their median and the
	# ratio of the means; the same for the CPU per request (off / required:
	# the rate the CPU allows).
	awk '{v[$1 " " $2] = $3; s[$2] += $3; c[$2] += $6; n[$2]++; if ($1 > rounds) rounds = $1}
		END {
			for (r = 1; r <= rounds; r++) q[r] = v[r " required"] / v[r " off"]
			for (i = 1; i <= rounds; i++) for (j = i + 1; j <= rounds; j++) if (q[j] < q[i]) { t = q[i]; q[i] = q[j]; q[j] = t }
			med = (rounds % 2) ? q[(rounds + 1) / 2] : (q[rounds / 2] + q[rounds / 2 + 1]) / 2
			printf "- mean requests/s: off %.0f, required %.0f: required / off %.3f\n", s["off"] / n["off"], s["required"] / n["required"], (s["required"] / n["required"]) / (s["off"] / n["off"])
			printf "- required / off per round: median %.3f, lowest %.3f, highest %.3f\n", med, q[1], q[rounds]
			printf "- server CPU per request: off %.1f µs, required %.1f µs: the rate the CPU allows, required / off, %.3f\n", c["off"] / n["off"], c["required"] / n["required"], (c["off"] / n["off"]) / (c["required"] / n["required"])
		}' "$out/keys-rounds.txt"
	echo "- the keyed server's own count of the key's tile requests (analytics top, counts flushed every 10 s): $counted"
} | tee "$results"
