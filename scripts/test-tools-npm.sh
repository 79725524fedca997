#!/usr/bin/env bash
# Installs the npm packages used by tests into .cache/npm-test/:
# playwright-core (browser automation; it drives Debian's /usr/bin/chromium,
# no browser is downloaded). Needs node and npm.
set -euo pipefail

PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/npm-test"

if ! command -v npm >/dev/null 2>&1; then
	echo "test-tools-npm: npm not found (apt-get install -y nodejs npm)" >&2
	exit 1
fi
pkg="$cache/node_modules/playwright-core/package.json"
if [[ -f "$pkg" ]] && [[ "$(node -p "require('$pkg').version")" == "$PLAYWRIGHT_VERSION" ]]; then
	echo "test-tools-npm: playwright-core $PLAYWRIGHT_VERSION already in $cache"
	exit 0
fi
mkdir -p "$cache"
if [[ ! -f "$cache/package.json" ]]; then
	printf '{"name":"tessera-test-tools","private":true}\n' >"$cache/package.json"
fi
# --ignore-scripts: playwright-core has no install script today; never let a
# package download a browser.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts --save-exact \
	"playwright-core@$PLAYWRIGHT_VERSION" >&2
echo "test-tools-npm: playwright-core $(node -p "require('$pkg').version") in $cache"
