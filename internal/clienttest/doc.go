// Package clienttest drives real third-party clients against Tessera's real
// HTTP server, as users' tools would: GDAL's WMTS, WMS and OGC API drivers
// (gdalinfo, gdal_translate), OWSLib's WebMapTileService and WebMapService
// (Debian's python3-owslib), MapLibre GL JS in headless Chromium (through
// the viewer driver of internal/web/browsertest), and OpenLayers and
// Leaflet in headless Chromium (testdata/mapclients.mjs; the npm packages
// ol and leaflet from scripts/test-tools-npm.sh) showing rendered maps.
//
// Each test builds a temporary data directory whose tiles/ folder holds
// fixture files from ../shared/fixtures, starts the server with
// server.New and Server.Serve on a loopback port, and records the server's
// access log so that the assertions can name every request a client made.
// Tests skip when the shared fixtures or a client program are absent, unless
// TESSERA_REQUIRE_TOOLS=1 makes a missing program a failure. The package
// holds no non-test code.
package clienttest
