#!/usr/bin/env bash
# Installs MapLibre GL JS from npm into a cache folder and copies its
# distribution files into internal/web/static/vendor/ (git-ignored), where the
# Go binary embeds them. Run from anywhere; needs node and npm.
#
#   scripts/web-assets.sh            # install if missing or version changed
#   MAPLIBRE_VERSION=x.y.z scripts/web-assets.sh
set -euo pipefail

MAPLIBRE_VERSION="${MAPLIBRE_VERSION:-5.24.1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/npm-web"
vendor="$root/internal/web/static/vendor"

if ! command -v npm >/dev/null 2>&1; then
	echo "web-assets: npm not found (apt-get install -y nodejs npm)" >&2
	exit 1
fi

stamp="$vendor/.maplibre-version"
if [[ -f "$vendor/maplibre-gl.js" && -f "$vendor/maplibre-gl.css" && -f "$stamp" && "$(cat "$stamp")" == "$MAPLIBRE_VERSION" ]]; then
	echo "web-assets: maplibre-gl $MAPLIBRE_VERSION already in $vendor"
	exit 0
fi

mkdir -p "$cache" "$vendor"
if [[ ! -f "$cache/package.json" ]]; then
	printf '{"name":"tessera-web-assets","private":true}\n' >"$cache/package.json"
fi
npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts --save-exact \
	"maplibre-gl@$MAPLIBRE_VERSION" >&2

dist="$cache/node_modules/maplibre-gl/dist"
installed="$(node -p "require('$cache/node_modules/maplibre-gl/package.json').version")"
if [[ "$installed" != "$MAPLIBRE_VERSION" ]]; then
	echo "web-assets: installed maplibre-gl $installed, want $MAPLIBRE_VERSION" >&2
	exit 1
fi
for f in maplibre-gl.js maplibre-gl.css; do
	cp "$dist/$f" "$vendor/$f.tmp"
	mv "$vendor/$f.tmp" "$vendor/$f"
done
cp "$cache/node_modules/maplibre-gl/LICENSE.txt" "$vendor/LICENSE-maplibre-gl.txt" 2>/dev/null || true
echo "$MAPLIBRE_VERSION" >"$stamp"
echo "web-assets: maplibre-gl $MAPLIBRE_VERSION copied to $vendor"
