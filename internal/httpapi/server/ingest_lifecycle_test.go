package server

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// TestIngestAdminLifecycle: the list and cancel endpoints, a second PUT
// while one is streaming (409), and the Content-Range past the total.
func TestIngestAdminLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	data := bytes.Repeat([]byte(`{"type":"FeatureCollection","features":[]}`), 3)
	a := e.createIngest("a.geojson", len(data))
	b := e.createIngest("b.geojson", 100)

	list := decodeJSON[struct {
		Items []ingestRecord
		Total int
	}](t, e.admin("GET", "/tiles/ingest?limit=1", nil).body)
	if list.Total != 2 || len(list.Items) != 1 || list.Items[0].ID != b.ID {
		t.Errorf("paged list: %+v", list)
	}
	checkError(t, e.admin("GET", "/tiles/ingest?limit=0", nil), 400)

	// A second PUT while the first one's body is still arriving.
	pr, pw := io.Pipe()
	first := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("PUT", a.UploadURL, pr)
		req.ContentLength = int64(len(data))
		resp, err := e.http.Client().Do(req)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	pw.Write(data[:5])
	// Wait until the first PUT holds the ingest: a probe of a chunk that
	// starts past the bytes received is refused with 409 while another
	// request holds the ingest, else with 400, and changes nothing either
	// way (a full second PUT sent before the first reaches the service
	// would win the ingest itself, as it did once on a loaded machine).
	deadline := time.Now().Add(10 * time.Second)
	for {
		probe := e.put(a, []byte("x"), "Content-Range", "bytes 100-100/"+strconv.Itoa(len(data)))
		if probe.status == 409 {
			break
		}
		if probe.status != 400 || time.Now().After(deadline) {
			pw.CloseWithError(io.ErrUnexpectedEOF)
			t.Fatalf("probe while the first PUT streams: %d %s", probe.status, probe.body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	second := e.put(a, bytes.Repeat([]byte("x"), len(data)))
	if second.status != 409 || !strings.Contains(string(second.body), "another request") {
		t.Errorf("second PUT: %d %s, want 409", second.status, second.body)
	}
	pw.Write(data[5:])
	pw.Close()
	if st := <-first; st != 200 {
		t.Errorf("first PUT: %d", st)
	}
	got := decodeJSON[ingestRecord](t, e.admin("GET", "/tiles/ingest/"+a.ID, nil).body)
	if got.Received != int64(len(data)) || got.State != "uploaded" {
		t.Errorf("after the first PUT: %+v", got)
	}
	part, _ := os.ReadFile(filepath.Join(e.dir, UploadsDir, a.ID+".part"))
	if !bytes.Equal(part, data) {
		t.Errorf("the first PUT's bytes were replaced: %q", part)
	}

	// A range that ends past the total says so.
	r := e.put(b, make([]byte, 50), "Content-Range", "bytes 90-139/100")
	if r.status != 400 || !strings.Contains(string(r.body), "past the total of 100 bytes") {
		t.Errorf("bytes 90-139/100: %d %s", r.status, r.body)
	}

	// Cancel: the record and its file are gone.
	del := e.admin("DELETE", "/tiles/ingest/"+b.ID, nil)
	if del.status != 200 {
		t.Fatalf("cancel: %d %s", del.status, del.body)
	}
	checkError(t, e.admin("GET", "/tiles/ingest/"+b.ID, nil), 404)
	if _, err := os.Stat(filepath.Join(e.dir, UploadsDir, b.ID+".part")); !os.IsNotExist(err) {
		t.Error("the cancelled upload kept its file")
	}
	checkError(t, e.admin("DELETE", "/tiles/ingest/"+b.ID, nil), 404)
}

// TestLargeRasterTilesNeverBreakDocuments: a raster MBTiles with 1280-pixel
// tiles dropped into tiles/ is listed with the reason and not served; no
// document answers 500. The same file uploaded is refused with 400.
func TestLargeRasterTilesNeverBreakDocuments(t *testing.T) {
	e := newEnv(t, nil)
	path := filepath.Join(e.dir, TilesDir, "huge.mbtiles")
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 1280, 1280)))
	ctx := context.Background()
	w, err := mbtiles.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.PutTile(ctx, 0, 0, 0, img.Bytes())
	w.SetMetadata(ctx, map[string]string{"format": "png", "name": "Huge", "minzoom": "0", "maxzoom": "0"})
	w.Close()
	e.admin("POST", "/tiles/rescan", nil)
	list := decodeJSON[struct {
		Items []struct{ Name, State, Error string }
	}](t, e.admin("GET", "/tiles", nil).body)
	found := false
	for _, it := range list.Items {
		if it.Name == "huge" {
			found = true
			if it.State != "error" || !strings.Contains(it.Error, "1280 pixels") {
				t.Errorf("huge in the admin list: %+v", it)
			}
		}
	}
	if !found {
		t.Fatal("huge.mbtiles is not listed")
	}
	for _, p := range []string{"/tiles/huge/tiles.json", "/tiles/huge/tiles", "/tiles/huge/tileMatrixSet", "/tiles/huge/WMTSCapabilities.xml", "/tiles/huge/0/0/0.png", "/ogc/collections", "/WMTSCapabilities.xml"} {
		if r := e.do("GET", p, nil); r.status >= 500 {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
	data, _ := os.ReadFile(path)
	r, _ := e.ingestFile("huge2.mbtiles", data)
	if r.status != 400 || !strings.Contains(string(r.body), "1280 pixels") {
		t.Errorf("upload of 1280-pixel tiles: %d %s", r.status, r.body)
	}
}
