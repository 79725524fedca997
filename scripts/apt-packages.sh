#!/usr/bin/env bash
# Installs the Debian packages Tessera's tests, benchmarks and demo use,
# skipping the package index update when everything is already installed.
#
#   scripts/apt-packages.sh test    # tools the test suite drives (nginx: the cluster tests; a C compiler: go test -race needs cgo)
#   scripts/apt-packages.sh bench   # nginx and wrk for `make bench`
#   scripts/apt-packages.sh run     # what `make run` needs (npm; PROJ's library, headers and database for the coordinates service)
set -euo pipefail

case "${1:-test}" in
run) pkgs=(nodejs npm ca-certificates proj-data libproj-dev pkg-config gcc libc6-dev) ;;
test) pkgs=(nodejs npm ca-certificates sqlite3 postgresql nginx gdal-bin python3-owslib chromium fonts-noto-core fonts-open-sans osmium-tool librsvg2-bin gcc libc6-dev proj-data libproj-dev proj-bin pkg-config) ;;
bench) pkgs=(nginx-light wrk) ;;
*)
	echo "usage: $0 run|test|bench" >&2
	exit 2
	;;
esac

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
# node/npm may come from elsewhere than Debian (the machine image ships them).
if command -v npm >/dev/null 2>&1; then
	filtered=()
	for p in "${missing[@]}"; do
		[[ "$p" == nodejs || "$p" == npm ]] || filtered+=("$p")
	done
	missing=("${filtered[@]+"${filtered[@]}"}")
fi
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
	SUDO="sudo"
fi
# The demo and the geocoding index fetch Debian packages with apt-get
# download, which needs the package lists: make sure they exist.
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
	echo "apt-packages: no package lists yet: apt-get update"
	$SUDO apt-get update -qq
fi
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "apt-packages: all present (${pkgs[*]})"
	exit 0
fi
echo "apt-packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
