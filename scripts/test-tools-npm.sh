#!/usr/bin/env bash
# Installs the npm packages the tests drive into .cache/npm-test/:
#   playwright-core                    drives Debian's /usr/bin/chromium (no browser is downloaded)
#   pmtiles                            the reference PMTiles reader, for interoperability tests
#   @maplibre/maplibre-gl-style-spec   gl-style-validate, the reference style validator
#   ol, leaflet                        OpenLayers and Leaflet, whose browser builds (ol/dist/ol.js,
#                                      leaflet/dist/leaflet.js) the map client tests load in Chromium
#   three                              only for examples/jsm/libs/basis/ (basis_transcoder.js and .wasm),
#                                      the reference Basis Universal transcoder the KTX2 tile tests decode with
#   maplibre-gl, @mapbox/mapbox-gl-rtl-text
#                                      MapLibre GL JS and its RTL text plugin (Arabic shaped and ordered), with
#                                      which internal/render/testdata/maplibre-reference.mjs draws the reference
#                                      pictures of the renderer's tests (the versions those were made with; the
#                                      viewer's own MapLibre is scripts/web-assets.sh's, in .cache/npm-web)
# Needs node and npm. Does nothing when the pinned versions are there.
set -euo pipefail

PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.1}"
PMTILES_VERSION="${PMTILES_VERSION:-4.5.0}"
STYLE_SPEC_VERSION="${STYLE_SPEC_VERSION:-26.6.0}"
OL_VERSION="${OL_VERSION:-10.11.0}"
LEAFLET_VERSION="${LEAFLET_VERSION:-1.9.4}"
THREE_VERSION="${THREE_VERSION:-0.187.0}"
MAPLIBRE_REFERENCE_VERSION="${MAPLIBRE_REFERENCE_VERSION:-6.17.0}"
RTL_TEXT_VERSION="${RTL_TEXT_VERSION:-0.4.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/npm-test"

if ! command -v npm >/dev/null 2>&1; then
	echo "test-tools-npm: npm not found (apt-get install -y nodejs npm)" >&2
	exit 1
fi
want=("playwright-core@$PLAYWRIGHT_VERSION" "pmtiles@$PMTILES_VERSION" "@maplibre/maplibre-gl-style-spec@$STYLE_SPEC_VERSION"
	"ol@$OL_VERSION" "leaflet@$LEAFLET_VERSION" "three@$THREE_VERSION"
	"maplibre-gl@$MAPLIBRE_REFERENCE_VERSION" "@mapbox/mapbox-gl-rtl-text@$RTL_TEXT_VERSION")
# Pinned below what the packages above ask for: @mapbox/jsonlint-lines-primitives
# 2.0.3 (the style-spec's ^2.0.3) declares node >= 22 and npm warns EBADENGINE on
# Debian's Node 20; 2.0.2 declares >= 0.6. The override makes npm take it.
JSONLINT_VERSION="${JSONLINT_VERSION:-2.0.2}"
overrides="{\"@mapbox/jsonlint-lines-primitives\":\"$JSONLINT_VERSION\"}"
missing=()
jsonlint="$cache/node_modules/@mapbox/jsonlint-lines-primitives/package.json"
if [[ -f "$jsonlint" ]] && [[ "$(node -p "require('$jsonlint').version")" != "$JSONLINT_VERSION" ]]; then
	missing+=("${want[@]}")
fi
for spec in "${want[@]}"; do
	name="${spec%@*}"
	version="${spec##*@}"
	pkg="$cache/node_modules/$name/package.json"
	if [[ ! -f "$pkg" ]] || [[ "$(node -p "require('$pkg').version")" != "$version" ]]; then
		missing+=("$spec")
	fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "test-tools-npm: ${want[*]} already in $cache"
	exit 0
fi
mkdir -p "$cache"
if [[ ! -f "$cache/package.json" ]]; then
	printf '{"name":"tessera-test-tools","private":true}\n' >"$cache/package.json"
fi
node -e '
const fs = require("fs"), p = process.argv[1];
const pkg = JSON.parse(fs.readFileSync(p, "utf8"));
pkg.overrides = JSON.parse(process.argv[2]);
fs.writeFileSync(p, JSON.stringify(pkg, null, 2) + "\n");
' "$cache/package.json" "$overrides"
# --ignore-scripts: never let a package download a browser or anything else.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts --save-exact \
	"${missing[@]}" >&2
echo "test-tools-npm: installed ${missing[*]} in $cache"
