# Tessera: the two commands are `make run` and `make test`; both install what
# they need on a fresh Debian 12 machine with Go (as root).

GO        ?= go
DATA      ?= data
LISTEN    ?= 127.0.0.1:8080
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin
export PATH := $(GOBIN_DIR):$(PATH)

.PHONY: all build run demo geocode-eval test test-race test-short setup-run setup-test setup-bench web-assets bench fuzz vet fmt clean

all: build

# PROJ_TAGS builds with libproj (cgo, build tag proj: coordinate transforms
# and WKT/PROJ exports) when pkg-config finds it; evaluated when a recipe
# runs, after scripts/apt-packages.sh has installed libproj-dev.
PROJ_TAGS  = $$(pkg-config --exists proj 2>/dev/null && echo proj)

## build: the binary at bin/tessera (MapLibre GL JS from npm embedded; with PROJ when libproj-dev is installed)
build: web-assets
	$(GO) build -tags "$(PROJ_TAGS)" -trimpath -ldflags "-X main.version=$(VERSION)" -o bin/tessera ./cmd/tessera

web-assets:
	scripts/apt-packages.sh run
	scripts/web-assets.sh

## run: set everything up, build the demo world once, serve it on $(LISTEN)
run: build
	@if [ ! -f "$(DATA)/tiles/world.mbtiles" ]; then bin/tessera demo --data "$(DATA)" >/dev/null; \
	elif [ ! -f "$(DATA)/elevation/etopo5.nc" ] || [ ! -f "$(DATA)/geolocation/tables.json" ] || [ ! -d "$(DATA)/datasets" ] || [ ! -f "$(DATA)/images/relief.mbtiles" ] || [ ! -d "$(DATA)/weather" ]; then bin/tessera demo --services-only --data "$(DATA)" >/dev/null; fi
	bin/tessera serve --data "$(DATA)" --listen "$(LISTEN)"

## demo: (re)build the demo world into $(DATA)
demo: build
	bin/tessera demo --data "$(DATA)"

setup-test: web-assets
	scripts/apt-packages.sh test
	scripts/test-tools-npm.sh
	scripts/install-versitygw.sh

# The environment of the full test runs: external tools are required.
TEST_ENV  := TESSERA_REQUIRE_TOOLS=1 TESSERA_NODE_PATH=$(CURDIR)/.cache/npm-test/node_modules
# The packages the race detector runs over: all of them. Goroutines are
# everywhere an HTTP server, a cache or a worker pool is (grep -rln
# "go func\|errgroup\|sync\." internal cmd), and the end-to-end packages drive
# the real server concurrently. Timings in docs/architecture.md (Tests).
RACE_PKGS ?= ./...

## test: install the test tools, then run every test with the tools required, then again under the race detector
test: setup-test
	$(GO) vet ./...
	$(GO) vet -tags "$(PROJ_TAGS)" ./internal/coords/...
	@$(GO) test -count=1 -v -run 'TestFixtures$$' ./internal/style/expr | grep -E '^\s*fixtures_test.go:[0-9]+: expression fixtures' || true
	$(TEST_ENV) $(GO) test -tags "$(PROJ_TAGS)" -count=1 -timeout 40m ./...
	@$(MAKE) --no-print-directory test-race

## test-race: every test under the race detector (after make setup-test; needs cgo and gcc)
test-race:
	CGO_ENABLED=1 $(TEST_ENV) $(GO) test -tags "$(PROJ_TAGS)" -race -count=1 -timeout 40m $(RACE_PKGS)

## test-short: the self-contained core suite (no external tools needed)
test-short:
	$(GO) test -count=1 ./...

setup-bench: build
	scripts/apt-packages.sh bench

## bench: Go benchmarks and the wrk load run against nginx (results in bench/out/)
bench: setup-bench
	bench/run.sh
	bench/keys.sh
	bench/images.sh
	bench/renderer.sh
	bench/hostile.sh

## geocode-eval: score the geocoding evaluation against a running server (URL=...)
URL     ?= http://127.0.0.1:8080
QUERIES ?= ../shared/geocode-eval/queries.jsonl
geocode-eval: build
	bin/tessera geocode eval --url "$(URL)" --queries "$(QUERIES)"

## fuzz: a short run of every fuzz test
fuzz:
	scripts/fuzz.sh 20s

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w cmd internal

clean:
	rm -rf bin bench/out
