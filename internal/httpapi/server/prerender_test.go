package server

import (
	"bytes"
	"image/png"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/httpapi/admin"
)

// TestPrerenderJobs: a pre-render job asked through the admin API is
// rendered by the worker into a new raster tileset; bad requests are 4xx.
func TestPrerenderJobs(t *testing.T) {
	e := mapEnv(t)
	e.srv.prerender.Start()
	r := e.admin("POST", "/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 2, "name": "city-png"})
	if r.status != 202 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	job := decodeJSON[admin.PrerenderJob](t, r.body)
	if job.State != "processing" || job.Tiles != 21 || job.Request.Map != "city" || job.TilesetID != nil {
		t.Fatalf("created %s", r.body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for job.State == "processing" {
		if time.Now().After(deadline) {
			t.Fatalf("still processing: %+v", job)
		}
		time.Sleep(20 * time.Millisecond)
		job = decodeJSON[admin.PrerenderJob](t, e.admin("GET", "/prerender/"+job.ID, nil).body)
	}
	if job.State != "completed" || job.TilesetID == nil || job.Progress != 1 {
		t.Fatalf("ended %+v", job)
	}
	ts, ok := e.srv.Catalog.ByID(*job.TilesetID)
	if !ok || ts.Name != "city-png" {
		t.Fatalf("the tileset made: %v %+v", ok, ts)
	}
	tile := e.do("GET", "/tiles/city-png/1/1/0.png", nil)
	if tile.status != 200 {
		t.Fatalf("a rendered tile: %d", tile.status)
	}
	img, err := png.Decode(bytes.NewReader(tile.body))
	if err != nil || img.Bounds().Dx() != 256 {
		t.Fatalf("the rendered tile: %v", err)
	}
	// The same tile rendered on demand has the same pixels.
	live := e.do("GET", "/maps/city/256/1/1/0.png", nil)
	want, err := png.Decode(bytes.NewReader(live.body))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{5, 5}, {128, 128}, {250, 250}, {30, 200}} {
		if img.At(p[0], p[1]) != want.At(p[0], p[1]) {
			t.Errorf("pixel %v: pre-rendered %v, on demand %v", p, img.At(p[0], p[1]), want.At(p[0], p[1]))
		}
	}

	for _, c := range []struct {
		path   string
		body   any
		status int
	}{
		{"/maps/nosuch/prerender", map[string]any{"minzoom": 0, "maxzoom": 1}, 404},
		{"/maps/city/prerender", map[string]any{"minzoom": 3, "maxzoom": 1}, 400},
		{"/maps/city/prerender", map[string]any{"maxzoom": 1}, 400},
		{"/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 14}, 400},
		{"/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 1, "format": "gif"}, 400},
		{"/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 1, "bounds": []float64{10, 0, 5, 5}}, 400},
		{"/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 1, "name": "a/b"}, 400},
		{"/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 1, "extra": true}, 400},
	} {
		checkError(t, e.admin("POST", c.path, c.body), c.status)
	}
	checkError(t, e.admin("GET", "/prerender/nope", nil), 404)
	checkError(t, e.admin("GET", "/prerender/00000000-0000-4000-8000-000000000000", nil), 404)

}
