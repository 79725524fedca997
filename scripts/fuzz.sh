#!/usr/bin/env bash
# Runs every fuzz test of the module for a short time each.
#   scripts/fuzz.sh [DURATION]   (default 20s)
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-20s}"
grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(' internal | while read -r file; do
	dir="./$(dirname "$file")"
	grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/' | while read -r fn; do
		echo "== $dir $fn"
		go test "$dir" -run '^$' -fuzz "^${fn}\$" -fuzztime "$dur"
	done
done
