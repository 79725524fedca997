package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/pmtiles"
)

type ingestRecord struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	Filename   string `json:"filename"`
	Size       int64  `json:"size"`
	State      string `json:"state"`
	UploadURL  string `json:"upload_url"`
	Errors     []struct {
		Message string `json:"message"`
	} `json:"errors"`
	Received int64 `json:"received"`
}

func (e *testEnv) createIngest(filename string, size int) ingestRecord {
	e.t.Helper()
	r := e.admin("POST", "/tiles/ingest", map[string]any{"filename": filename, "size": size})
	if r.status != 200 {
		e.t.Fatalf("create ingest: %d %s", r.status, r.body)
	}
	rec := decodeJSON[ingestRecord](e.t, r.body)
	if rec.State != "upload" || rec.DocumentID == "" || !strings.HasPrefix(rec.UploadURL, e.http.URL+"/v1/admin/tiles/ingest/"+rec.ID+"/upload") {
		e.t.Fatalf("ingest record = %+v", rec)
	}
	return rec
}

// put sends bytes to the upload URL (no credentials: the URL is the secret).
func (e *testEnv) put(rec ingestRecord, body []byte, headers ...string) resp {
	e.t.Helper()
	return e.do("PUT", strings.TrimPrefix(rec.UploadURL, e.http.URL), bytes.NewReader(body), headers...)
}

func (e *testEnv) ingestFile(filename string, data []byte) (resp, ingestRecord) {
	e.t.Helper()
	rec := e.createIngest(filename, len(data))
	if r := e.put(rec, data); r.status != 200 {
		e.t.Fatalf("upload: %d %s", r.status, r.body)
	}
	return e.admin("POST", "/tiles/ingest/"+rec.ID+"/process", nil), rec
}

func TestIngestChunkedMBTiles(t *testing.T) {
	e := newEnv(t, nil)
	src := filepath.Join(t.TempDir(), "in.mbtiles")
	writeVector(t, src)
	data, _ := os.ReadFile(src)
	rec := e.createIngest("roads.mbtiles", len(data)) // "roads" is taken: the new one is roads-2

	third := len(data) / 3
	chunks := [][2]int{{0, third}, {third, 2 * third}, {2 * third, len(data)}}
	// A chunk that skips ahead is refused and changes nothing.
	gap := e.put(rec, data[2*third:], "Content-Range", fmt.Sprintf("bytes %d-%d/%d", 2*third, len(data)-1, len(data)))
	checkError(t, gap, 400)
	for i, c := range chunks {
		r := e.put(rec, data[c[0]:c[1]], "Content-Range", fmt.Sprintf("bytes %d-%d/%d", c[0], c[1]-1, len(data)))
		want := 202
		if i == len(chunks)-1 {
			want = 200
		}
		if r.status != want {
			t.Fatalf("chunk %d: %d %s", i, r.status, r.body)
		}
		got := decodeJSON[ingestRecord](t, r.body)
		if got.Received != int64(c[1]) {
			t.Errorf("chunk %d: received %d, want %d", i, got.Received, c[1])
		}
		if i == 0 {
			// Processing an incomplete upload is refused.
			checkError(t, e.admin("POST", "/tiles/ingest/"+rec.ID+"/process", nil), 400)
			// Resending an overlapping part is fine (a retry after a lost answer).
			if rr := e.put(rec, data[0:c[1]], "Content-Range", fmt.Sprintf("bytes 0-%d/%d", c[1]-1, len(data))); rr.status != 202 {
				t.Errorf("resend: %d %s", rr.status, rr.body)
			}
		}
	}
	g := decodeJSON[ingestRecord](t, e.admin("GET", "/tiles/ingest/"+rec.ID, nil).body)
	if g.Received != int64(len(data)) || g.State != "uploaded" {
		t.Errorf("after upload: %+v", g)
	}
	r := e.admin("POST", "/tiles/ingest/"+rec.ID+"/process", nil)
	if r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	d := decodeJSON[detail](t, r.body)
	if d.ID != rec.DocumentID || d.Name != "roads-2" || d.FileName != "roads-2.mbtiles" || d.TileType != "vector" {
		t.Errorf("tileset = %+v", d)
	}
	if tile := e.do("GET", "/tiles/roads-2/0/0/0.pbf", nil); tile.status != 200 {
		t.Errorf("new tileset tile: %d", tile.status)
	}
	// Processing again returns the same tileset.
	if again := decodeJSON[detail](t, e.admin("POST", "/tiles/ingest/"+rec.ID+"/process", nil).body); again.ID != d.ID {
		t.Errorf("second process: %+v", again)
	}
	if g := decodeJSON[ingestRecord](t, e.admin("GET", "/tiles/ingest/"+rec.ID, nil).body); g.State != "done" {
		t.Errorf("state after process = %s", g.State)
	}
}

func TestIngestPMTilesAndGeoJSON(t *testing.T) {
	e := newEnv(t, nil)
	// A PMTiles archive made by our writer.
	pm := filepath.Join(t.TempDir(), "pics.pmtiles")
	w, err := pmtiles.NewWriter(pm, pmtiles.WriterOptions{TileType: pmtiles.TileTypePNG, TileCompression: pmtiles.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	w.PutTile(0, 0, 0, pngBytes)
	w.PutTile(1, 0, 1, pngBytes)
	if err := w.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(pm)
	r, _ := e.ingestFile("pics.pmtiles", data)
	if r.status != 200 {
		t.Fatalf("process pmtiles: %d %s", r.status, r.body)
	}
	if d := decodeJSON[detail](t, r.body); d.Type != "pmtiles" || d.Name != "pics" {
		t.Errorf("pmtiles tileset = %+v", d)
	}
	if tile := e.do("GET", "/tiles/pics/1/0/1.png", nil); tile.status != 200 || !bytes.Equal(tile.body, pngBytes) {
		t.Errorf("pmtiles tile: %d", tile.status)
	}

	geo := `{"type":"FeatureCollection","features":[
	 {"type":"Feature","id":7,"properties":{"name":"Park","area":12.5},"geometry":{"type":"Polygon","coordinates":[[[2.30,48.80],[2.40,48.80],[2.40,48.90],[2.30,48.90],[2.30,48.80]]]}},
	 {"type":"Feature","properties":{"name":"Fountain"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}]}`
	r, _ = e.ingestFile("paris parks.geojson", []byte(geo))
	if r.status != 200 {
		t.Fatalf("process geojson: %d %s", r.status, r.body)
	}
	d := decodeJSON[detail](t, r.body)
	if d.Name != "paris parks" || d.TileType != "vector" || d.FileName != "paris parks.mbtiles" {
		t.Errorf("geojson tileset = %+v", d)
	}
	tj := decodeJSON[map[string]any](t, e.do("GET", "/tiles/paris%20parks/tiles.json", nil).body)
	vl := tj["vector_layers"].([]any)
	if len(vl) != 1 || vl[0].(map[string]any)["id"] != "paris_parks" {
		t.Errorf("vector_layers = %v", vl)
	}
	if mz := tj["maxzoom"].(float64); mz < 6 || mz > 14 {
		t.Errorf("maxzoom = %v", mz)
	}
}

func TestIngestRefusals(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.MaxUploadMB = 1 })
	before := len(e.srv.Catalog.List())

	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": "big.mbtiles", "size": 2 << 20}), 413)
	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": "notes.txt", "size": 10}), 400)
	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": "../x.mbtiles", "size": 10}), 400)
	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": "x.mbtiles", "size": 0}), 400)
	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": "x.mbtiles"}), 400)
	checkError(t, e.admin("POST", "/tiles/ingest", map[string]any{"filename": strings.Repeat("a", 300) + ".mbtiles", "size": 10}), 400)
	checkError(t, e.admin("GET", "/tiles/ingest/not-an-id", nil), 404)
	checkError(t, e.do("PUT", "/v1/admin/tiles/ingest/6f1c3a52-1111-4a6e-9d7e-000000000000/upload", strings.NewReader("x")), 404)

	// A body of the wrong size.
	rec := e.createIngest("short.mbtiles", 100)
	checkError(t, e.put(rec, make([]byte, 60)), 400)
	checkError(t, e.put(rec, make([]byte, 160)), 400)
	checkError(t, e.put(rec, make([]byte, 10), "Content-Range", "bytes 0-9/999"), 400)
	checkError(t, e.put(rec, make([]byte, 10), "Content-Range", "bytes=0-9/100"), 400)

	// A truncated MBTiles, corrupt GeoJSON, an unknown format behind a
	// known extension, and a GeoJSON without features: all refused, and no
	// tileset appears.
	src := filepath.Join(t.TempDir(), "in.mbtiles")
	writeVector(t, src)
	mb, _ := os.ReadFile(src)
	cases := []struct {
		name string
		data []byte
	}{
		{"truncated.mbtiles", mb[:len(mb)/2]},
		{"corrupt.geojson", []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1]}}]}`)},
		{"latitude.geojson", []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1, 95]}}]}`)},
		{"empty.geojson", []byte(`{"type":"FeatureCollection","features":[]}`)},
		{"picture.mbtiles", pngBytes},
		{"garbage.pmtiles", []byte("PMTiles\x03 but then nothing sensible at all")},
	}
	for _, c := range cases {
		r, rec := e.ingestFile(c.name, c.data)
		checkError(t, r, 400)
		g := decodeJSON[ingestRecord](t, e.admin("GET", "/tiles/ingest/"+rec.ID, nil).body)
		if g.State != "failed" || len(g.Errors) == 0 || g.Errors[0].Message == "" {
			t.Errorf("%s: record after failure = %+v", c.name, g)
		}
	}
	if after := len(e.srv.Catalog.List()); after != before {
		t.Errorf("%d tilesets after refused ingests, want %d", after, before)
	}
	entries, _ := os.ReadDir(filepath.Join(e.dir, "tiles"))
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), ".ingest-") {
			t.Errorf("temporary file %s left behind", de.Name())
		}
	}
}
