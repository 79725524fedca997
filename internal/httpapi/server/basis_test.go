package server

import (
	"bytes"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/basisu"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/store"
)

// TestMapRasterTilesBasis: raster map tiles in spec 002's basis format are
// KTX 2.0 files (image/ktx2) of the tile's size, cached with an ETag,
// counted in the usage like the other formats; static maps refuse basis.
func TestMapRasterTilesBasis(t *testing.T) {
	e := mapEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour })
	for _, tt := range []struct {
		path string
		side int
	}{
		{"/maps/city/0/0/0.basis", 512},
		{"/maps/city/0/0/0@2x.basis", 1024},
		{"/maps/city/256/1/1/0.basis", 256},
	} {
		r := e.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != "image/ktx2" || r.header.Get("ETag") == "" || r.header.Get("Cache-Control") == "" {
			t.Fatalf("%s: %d %q etag %q: %s", tt.path, r.status, r.header.Get("Content-Type"), r.header.Get("ETag"), r.body)
		}
		if !bytes.HasPrefix(r.body, basisu.Identifier[:]) {
			t.Fatalf("%s: no KTX 2.0 identifier: % x", tt.path, r.body[:min(12, len(r.body))])
		}
		info, err := basisu.Inspect(r.body)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if info.Width != tt.side || info.Height != tt.side {
			t.Errorf("%s: %dx%d, want %d px", tt.path, info.Width, info.Height, tt.side)
		}
		if nm := e.do("GET", tt.path, nil, "If-None-Match", r.header.Get("ETag")); nm.status != 304 {
			t.Errorf("%s with its ETag: %d, want 304", tt.path, nm.status)
		}
	}
	if r := e.do("GET", "/maps/city/static/0,0,1/100x100.basis", nil); r.status != 400 {
		t.Errorf("static map as basis: %d, want 400", r.status)
	} else {
		checkError(t, r, 400)
	}
	e.flushUsage()
	// Three tiles and their three 304s; the refused static map is not
	// counted.
	if got := e.usageSums(store.ByService)["request/maps"]; got != 6 {
		t.Errorf("maps requests counted: %d, want 6", got)
	}
}

// TestMapRasterTilesBasisTranscoded decodes the server's basis tile with the
// reference transcoder and compares it with the server's PNG of the same
// tile.
func TestMapRasterTilesBasisTranscoded(t *testing.T) {
	tr := fixtures.NewBasisTranscoder(t)
	e := mapEnv(t)
	for _, tile := range []string{"/maps/city/0/0/0", "/maps/city/256/3/4/2@2x"} {
		pngResp := e.do("GET", tile+".png", nil)
		basis := e.do("GET", tile+".basis", nil)
		if pngResp.status != 200 || basis.status != 200 {
			t.Fatalf("%s: png %d, basis %d", tile, pngResp.status, basis.status)
		}
		want := fixtures.NRGBA(decodeImage(t, pngResp))
		got := tr.Transcode(t, basis.body)
		if got.Rect != want.Rect {
			t.Fatalf("%s: transcoded %v, PNG %v", tile, got.Rect, want.Rect)
		}
		p := fixtures.PSNR(want, got)
		t.Logf("%s: PNG %d bytes, basis %d bytes, PSNR %.2f dB", tile, len(pngResp.body), len(basis.body), p)
		if p < 25 {
			t.Errorf("%s: PSNR %.2f dB < 25", tile, p)
		}
	}
}
