#!/usr/bin/env sh
# install-versitygw.sh: make the versitygw S3 gateway available for the
# internal/pmtiles S3 tests. Does nothing when versitygw is already on PATH
# (or in $(go env GOPATH)/bin); otherwise builds it from the Go module proxy.
# The main package lives in cmd/versitygw of the module github.com/versity/versitygw.
#
# Usage: scripts/install-versitygw.sh
# Environment: VERSITYGW_VERSION (default below), GOBIN (optional install dir).
set -eu

VERSITYGW_VERSION="${VERSITYGW_VERSION:-v1.8.0}"

if command -v versitygw >/dev/null 2>&1; then
	echo "versitygw already installed: $(command -v versitygw)"
	exit 0
fi

gobin="${GOBIN:-$(go env GOPATH)/bin}"
if [ -x "$gobin/versitygw" ]; then
	echo "versitygw already installed: $gobin/versitygw (add $gobin to PATH)"
	exit 0
fi

echo "installing github.com/versity/versitygw@${VERSITYGW_VERSION} into $gobin"
# CGO is not needed for the posix backend; build a static binary.
CGO_ENABLED=0 go install "github.com/versity/versitygw/cmd/versitygw@${VERSITYGW_VERSION}"
"$gobin/versitygw" --version >/dev/null 2>&1 || "$gobin/versitygw" --help >/dev/null 2>&1 || true
echo "installed: $gobin/versitygw"
