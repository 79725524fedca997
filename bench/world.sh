# Sourced by the tile benchmarks (run.sh, keys.sh): bench_world makes sure
# $out/world.mbtiles (the demo world, zooms 0-8, every tile present) and
# $out/paths.txt (its tiles' relative paths, one a line, with the same bytes
# as files under $out/static for nginx) exist, and sets ntiles. Needs $root,
# $out and $bin.
bench_world() {
	world="$out/world.mbtiles"
	if [[ ! -f "$world" ]]; then
		rm -rf "$out/demo"
		"$bin" demo --data "$out/demo" --cache "$root/.cache/opendata"
		cp "$out/demo/tiles/world.mbtiles" "$world"
	fi
	ntiles=$(sqlite3 "$world" "SELECT COUNT(*) FROM tiles")
	echo "bench: $world has $ntiles tiles"
	if ((ntiles < 50000)); then
		echo "bench: need at least 50,000 distinct tiles" >&2
		exit 1
	fi
	if [[ ! -f "$out/paths.txt" ]]; then
		rm -rf "$out/static"
		"$bin" convert --list "$out/paths.txt" "$world" "$out/static/tiles/world"
	fi
}
