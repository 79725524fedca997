package server

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/public"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/store"
)

// TestPictures: an image cut into a pyramid is described by image.json
// (every field of ImageJSON) and served tile by tile: 200 with the
// picture's pixels, 204 for a transparent tile, 400 past the edge or for a
// bad address, 404 for an unknown image; keyed and counted under images.
func TestPictures(t *testing.T) {
	var dir string
	e := newEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour; dir = c.DataDir })
	// 600 x 300: zooms 0..2; the right third transparent.
	src := image.NewNRGBA(image.Rect(0, 0, 600, 300))
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			src.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), 99, 255})
		}
	}
	if _, err := pyramid.WriteMBTiles(context.Background(), pyramid.ImageRows(src), filepath.Join(dir, ImagesDir, "plan.mbtiles"), "plan",
		pyramid.Meta{Description: "A floor plan", Attribution: "Tessera tests"}, pyramid.Options{}); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/images/plan/image.json", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("image.json: %d %s", r.status, r.body)
	}
	got := decodeJSON[public.ImageJSON](t, r.body)
	want := public.ImageJSON{ID: "plan", Description: "A floor plan", Attribution: "Tessera tests", Width: 600, Height: 300, MinZoom: 0, MaxZoom: 2, TileSize: 256}
	if got != want {
		t.Errorf("image.json %+v, want %+v", got, want)
	}
	for _, k := range []string{"id", "description", "attribution", "width", "height", "minzoom", "maxzoom", "tileSize"} {
		if !bytes.Contains(r.body, []byte(`"`+k+`":`)) {
			t.Errorf("image.json has no %q: %s", k, r.body)
		}
	}
	tile := e.do("GET", "/images/plan/2/1/0", nil)
	if tile.status != 200 || tile.header.Get("Content-Type") != "image/png" {
		t.Fatalf("tile: %d %s", tile.status, tile.body)
	}
	img, err := png.Decode(bytes.NewReader(tile.body))
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(img.At(10, 20)).(color.NRGBA); c != src.NRGBAAt(266, 20) {
		t.Errorf("pixel %v, want %v", c, src.NRGBAAt(266, 20))
	}
	if again := e.do("GET", "/images/plan/2/1/0", nil, "If-None-Match", tile.header.Get("ETag")); again.status != 304 {
		t.Errorf("conditional: %d", again.status)
	}
	if r := e.do("GET", "/images/plan/2/1/0.png", nil); r.status != 200 {
		t.Errorf("with .png: %d", r.status)
	}
	if r := e.do("GET", "/images/plan/2/2/1", nil); r.status != 204 || len(r.body) != 0 { // x 512..767: transparent
		t.Errorf("transparent tile: %d %q", r.status, r.body)
	}
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/images/plan/2/3/0", 400}, // past the right edge (600 px: x 0..2)
		{"/images/plan/2/0/2", 400}, // past the bottom (300 px: y 0..1)
		{"/images/plan/0/0/0.jpg", 400},
		{"/images/plan/3/0/0", 400}, // past maxzoom
		{"/images/plan/-1/0/0", 400},
		{"/images/plan/a/0/0", 400},
		{"/images/plan/1/0/x", 400},
		{"/images/plan/tiles.json", 400},
		{"/images/.plan/image.json", 400},
		{"/images/nope/image.json", 404},
		{"/images/nope/0/0/0", 404},
	} {
		checkError(t, e.do("GET", c.path, nil), c.status)
	}
	e.flushUsage()
	if n := e.usageSums(store.ByService)["request/images"]; n != 5 { // image.json, the tile, 304, .png, 204
		t.Errorf("image requests counted: %d, want 5", n)
	}
}

// TestPicturesKeyed: with api_keys required an image needs a key.
func TestPicturesKeyed(t *testing.T) {
	var dir string
	e := newEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired; dir = c.DataDir })
	src := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	if _, err := pyramid.WriteMBTiles(context.Background(), pyramid.ImageRows(src), filepath.Join(dir, ImagesDir, "dot.mbtiles"), "dot", pyramid.Meta{}, pyramid.Options{}); err != nil {
		t.Fatal(err)
	}
	tok := e.serviceToken("images")
	key := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, map[string]any{}).body).Token
	checkError(t, e.do("GET", "/images/dot/image.json", nil), 403)
	checkError(t, e.do("GET", "/images/dot/0/0/0", nil), 403)
	if r := e.do("GET", "/images/dot/image.json?key="+key, nil); r.status != 200 {
		t.Errorf("with a key: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/images/dot/0/0/0?key="+key, nil); r.status != 204 {
		t.Errorf("a transparent tile with a key: %d %s", r.status, r.body)
	}
}

// TestPictureUpload: the account API's dataset ingest with output type
// "image" cuts an uploaded PNG into the image /images/{document id}/; a
// file that is not a picture fails the ingest; other names and a
// replacement are refused at creation.
func TestPictureUpload(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.serviceToken("images")
	src := image.NewNRGBA(image.Rect(0, 0, 700, 300))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	png.Encode(&buf, src)
	upload := func(name string, data []byte) ingestView {
		t.Helper()
		r := e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": name, "size": len(data),
			"supported_upload_types": []string{"resumable"}, "output": map[string]any{"type": "image"}})
		if r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		v := decodeJSON[ingestView](t, r.body)
		if status, _, body := plainPut(t, v.UploadURL, data); status != 200 {
			t.Fatalf("upload: %d %s", status, body)
		}
		if r := e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, nil); r.status != 200 {
			t.Fatalf("process: %d %s", r.status, r.body)
		}
		return e.awaitIngest(secret, v.ID)
	}
	v := upload("scan.png", buf.Bytes())
	if v.State != "completed" || v.DocumentID == nil {
		t.Fatalf("ingest %+v", v)
	}
	doc := decodeJSON[public.ImageJSON](t, e.do("GET", "/images/"+*v.DocumentID+"/image.json", nil).body)
	if doc.ID != *v.DocumentID || doc.Width != 700 || doc.Height != 300 || doc.MaxZoom != 2 {
		t.Errorf("image.json %+v", doc)
	}
	tile := e.do("GET", "/images/"+*v.DocumentID+"/2/2/1", nil)
	if tile.status != 200 {
		t.Fatalf("tile: %d", tile.status)
	}
	got, err := png.Decode(bytes.NewReader(tile.body))
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(got.At(3, 4)); c != src.NRGBAAt(515, 260) {
		t.Errorf("pixel %v, want %v", c, src.NRGBAAt(515, 260))
	}
	if bad := upload("bad.png", []byte("not a picture at all")); bad.State != "failed" {
		t.Errorf("a bad picture: %+v", bad)
	}
	for _, body := range []map[string]any{
		{"filename": "scan.gif", "size": 10, "output": map[string]any{"type": "image"}},
		{"filename": "scan.geojson", "size": 10, "output": map[string]any{"type": "image"}},
	} {
		if r := e.account("POST", "/datasets/ingest", secret, body); r.status != 400 || !isMessage(r.body) {
			t.Errorf("%v: %d %s", body, r.status, r.body)
		}
	}
}
