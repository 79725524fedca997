// Package browsertest holds the real-browser test of the viewer pages: a Go
// test serves the pages, the embedded static files, TileJSON documents and
// tiles read from fixture MBTiles files, and drives Debian's Chromium through
// them with playwright-core (run.mjs). It has no non-test code.
package browsertest
