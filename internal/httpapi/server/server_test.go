package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/tiler"
)

const token = "test-admin-token"

// testEnv is a server over a temporary data directory holding a vector
// tileset made by the tiler (gzip tiles) and a raster one.
type testEnv struct {
	t    *testing.T
	dir  string
	srv  *Server
	http *httptest.Server
}

func newEnv(t *testing.T, mutate func(*config.Config)) *testEnv {
	t.Helper()
	return newLoggedEnv(t, mutate, nil)
}

// newLoggedEnv is newEnv with the server's log written to log (nil:
// discarded).
func newLoggedEnv(t *testing.T, mutate func(*config.Config), log io.Writer) *testEnv {
	t.Helper()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeVector(t, filepath.Join(tiles, "roads.mbtiles"))
	writeRaster(t, filepath.Join(tiles, "photo.mbtiles"))
	os.WriteFile(filepath.Join(tiles, "broken.mbtiles"), []byte("not a database at all"), 0o644)
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.AdminCredentials = token
	cfg.Watch = false
	if mutate != nil {
		mutate(&cfg)
	}
	logger := slog.New(slog.DiscardHandler)
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, nil))
	}
	srv, err := New(context.Background(), cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &testEnv{t: t, dir: dir, srv: srv, http: hs}
}

func writeVector(t *testing.T, path string) {
	t.Helper()
	layers := []tiler.Layer{{Name: "roads", MinZoom: 0, MaxZoom: 3, Features: []tiler.Feature{
		{ID: 1, Geometry: orb.LineString{{-10, -10}, {10, 10}, {30, 5}}, Properties: map[string]any{"name": "Main street", "lanes": 2}},
		{ID: 2, Geometry: orb.Point{2.35, 48.85}, Properties: map[string]any{"name": "Paris"}},
	}}}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = 0, 3
	opts.Logger = slog.New(slog.DiscardHandler)
	if _, err := ingest.BuildMBTiles(context.Background(), layers, opts, path, map[string]string{"name": "Roads", "attribution": "Test data"}); err != nil {
		t.Fatal(err)
	}
}

var pngBytes = []byte("\x89PNG\r\n\x1a\nfake-png-payload")

func writeRaster(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	w, err := mbtiles.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.PutTile(ctx, 0, 0, 0, pngBytes)
	w.PutTile(ctx, 1, 1, 0, pngBytes)
	w.SetMetadata(ctx, map[string]string{"format": "png", "name": "Photo", "minzoom": "0", "maxzoom": "1"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (e *testEnv) do(method, path string, body io.Reader, headers ...string) resp {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	// Ask for exactly what the test says: no transparent gzip.
	tr := &http.Transport{DisableCompression: true}
	res, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

func (e *testEnv) admin(method, path string, body any) resp {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	return e.do(method, "/v1/admin"+path, r, "Authorization", "Basic "+token, "Content-Type", "application/json")
}

func decodeJSON[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// checkError asserts an error status with a JSON {"message"} body.
func checkError(t *testing.T, r resp, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (body %s)", r.status, status, r.body)
	}
	m := decodeJSON[map[string]string](t, r.body)
	if m["message"] == "" {
		t.Errorf("error body without message: %s", r.body)
	}
}

func TestTiles(t *testing.T) {
	e := newEnv(t, nil)

	// Gzip-stored vector tile: as stored to a gzip client...
	gz := e.do("GET", "/tiles/roads/0/0/0.pbf", nil, "Accept-Encoding", "gzip, deflate")
	if gz.status != 200 || gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
		t.Fatalf("gzip tile: %d %v", gz.status, gz.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	plainFromGzip, _ := io.ReadAll(zr)
	// ...and decompressed to a client that does not accept gzip.
	plain := e.do("GET", "/tiles/roads/0/0/0", nil)
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" || !bytes.Equal(plain.body, plainFromGzip) {
		t.Fatalf("plain tile: %d %v (%d bytes, want %d)", plain.status, plain.header, len(plain.body), len(plainFromGzip))
	}
	if gz.header.Get("ETag") == plain.header.Get("ETag") {
		t.Error("the gzip and identity representations share an ETag")
	}
	tile, err := mvt.Decode(plain.body)
	if err != nil {
		t.Fatal(err)
	}
	if l := tile.Layer("roads"); l == nil || l.Len() != 2 {
		t.Fatalf("decoded tile has no roads layer with 2 features")
	}
	for _, ae := range []string{"gzip;q=0", "identity", "br"} {
		r := e.do("GET", "/tiles/roads/0/0/0.mvt", nil, "Accept-Encoding", ae)
		if r.header.Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q got Content-Encoding %q", ae, r.header.Get("Content-Encoding"))
		}
	}

	// Conditional requests and HEAD.
	etag := gz.header.Get("ETag")
	if nm := e.do("GET", "/tiles/roads/0/0/0.pbf", nil, "Accept-Encoding", "gzip", "If-None-Match", etag); nm.status != 304 || len(nm.body) != 0 {
		t.Errorf("If-None-Match: %d", nm.status)
	}
	if nm := e.do("GET", "/tiles/roads/0/0/0.pbf", nil, "Accept-Encoding", "gzip", "If-None-Match", `"other"`); nm.status != 200 {
		t.Errorf("If-None-Match other: %d", nm.status)
	}
	head := e.do("HEAD", "/tiles/roads/0/0/0.pbf", nil, "Accept-Encoding", "gzip")
	if head.status != 200 || len(head.body) != 0 || head.header.Get("Content-Length") != fmt.Sprint(len(gz.body)) {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %s", head.status, len(head.body), head.header.Get("Content-Length"))
	}
	if cc := gz.header.Get("Cache-Control"); cc != config.Default().CacheControlTiles {
		t.Errorf("Cache-Control = %q", cc)
	}
	// CORS.
	if c := e.do("GET", "/tiles/photo/0/0/0.png", nil, "Origin", "https://app.example"); c.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("CORS header missing: %v", c.header)
	}

	// Raster tile with its format's extension; the wrong one is refused.
	if r := e.do("GET", "/tiles/photo/1/1/0.png", nil); r.status != 200 || !bytes.Equal(r.body, pngBytes) || r.header.Get("Content-Type") != "image/png" {
		t.Errorf("raster tile: %d %q", r.status, r.header.Get("Content-Type"))
	}
	tests := []struct {
		path   string
		status int
	}{
		{"/tiles/photo/1/0/0.png", 204},   // absent
		{"/tiles/roads/3/7/0.pbf", 204},   // absent
		{"/tiles/photo/1/2/0.png", 400},   // outside the grid
		{"/tiles/photo/-1/0/0.png", 400},  // malformed
		{"/tiles/photo/a/0/0", 400},       // malformed
		{"/tiles/photo/0/0/0.pbf", 400},   // wrong format
		{"/tiles/photo/31/0/0.png", 400},  // beyond the deepest zoom
		{"/tiles/nope/0/0/0.png", 404},    // unknown
		{"/tiles/broken/0/0/0.png", 404},  // unreadable file
		{"/tiles/photo/0/0/0/0.png", 404}, // no such route
	}
	for _, tt := range tests {
		r := e.do("GET", tt.path, nil)
		if r.status != tt.status {
			t.Errorf("GET %s = %d, want %d (%s)", tt.path, r.status, tt.status, r.body)
		}
		if tt.status >= 400 {
			checkError(t, r, tt.status)
		}
		if tt.status == 204 && len(r.body) != 0 {
			t.Errorf("GET %s: 204 with a body", tt.path)
		}
	}

	// Unpublished tilesets answer 404 everywhere, and come back when published.
	photo, _ := e.srv.Catalog.Get("photo")
	e.admin("POST", "/tiles/"+photo.ID+"/unpublish", nil)
	for _, p := range []string{"/tiles/photo/0/0/0.png", "/tiles/photo/tiles.json", "/tiles/photo/", "/tiles/photo/WMTSCapabilities.xml", "/tiles/photo/tiles", "/tiles/photo/tileMatrixSet"} {
		checkError(t, e.do("GET", p, nil), 404)
	}
	e.admin("POST", "/tiles/"+photo.ID+"/publish", nil)
	if r := e.do("GET", "/tiles/photo/0/0/0.png", nil); r.status != 200 {
		t.Errorf("after publish: %d", r.status)
	}
}

func TestDocuments(t *testing.T) {
	// The test client is this server's reverse proxy.
	e := newEnv(t, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1", "::1"} })
	r := e.do("GET", "/tiles/roads/tiles.json?key=k1", nil, "X-Forwarded-Proto", "https", "X-Forwarded-Host", "maps.example.com")
	if r.status != 200 {
		t.Fatalf("tiles.json: %d %s", r.status, r.body)
	}
	tj := decodeJSON[map[string]any](t, r.body)
	tiles := tj["tiles"].([]any)
	if tiles[0] != "https://maps.example.com/tiles/roads/{z}/{x}/{y}.pbf?key=k1" {
		t.Errorf("tile URL = %v", tiles[0])
	}
	if tj["tilejson"] != "3.0.0" || tj["maxzoom"].(float64) != 3 || tj["attribution"] != "Test data" {
		t.Errorf("tilejson = %v", tj)
	}
	if vl, _ := tj["vector_layers"].([]any); len(vl) != 1 || vl[0].(map[string]any)["id"] != "roads" {
		t.Errorf("vector_layers = %v", tj["vector_layers"])
	}
	if nm := e.do("GET", "/tiles/roads/tiles.json?key=k1", nil, "If-None-Match", r.header.Get("ETag"), "X-Forwarded-Proto", "https", "X-Forwarded-Host", "maps.example.com"); nm.status != 304 {
		t.Errorf("tiles.json revalidation: %d", nm.status)
	}

	ogcDoc := decodeJSON[map[string]any](t, e.do("GET", "/tiles/roads/tiles", nil).body)
	if ogcDoc["dataType"] != "vector" || !strings.Contains(string(e.do("GET", "/tiles/roads/tiles", nil).body), e.http.URL+"/tiles/roads/tileMatrixSet") {
		t.Errorf("OGC tileset: %v", ogcDoc)
	}
	tms := decodeJSON[map[string]any](t, e.do("GET", "/tiles/roads/tileMatrixSet", nil).body)
	if tms["id"] != "WebMercatorQuad" {
		t.Errorf("tile matrix set id %v", tms["id"])
	}
	conf := decodeJSON[map[string][]string](t, e.do("GET", "/ogc/conformance", nil).body)
	if len(conf["conformsTo"]) == 0 {
		t.Error("empty conformance")
	}
	w := e.do("GET", "/tiles/photo/WMTSCapabilities.xml", nil)
	if w.status != 200 || !strings.HasPrefix(w.header.Get("Content-Type"), "text/xml") {
		t.Fatalf("WMTS: %d %v", w.status, w.header)
	}
	var caps struct {
		Layers []struct {
			Identifier  string `xml:"Identifier"`
			ResourceURL []struct {
				Template string `xml:"template,attr"`
			} `xml:"ResourceURL"`
		} `xml:"Contents>Layer"`
	}
	if err := xml.Unmarshal(w.body, &caps); err != nil {
		t.Fatal(err)
	}
	if len(caps.Layers) != 1 || caps.Layers[0].Identifier != "photo" || !strings.HasPrefix(caps.Layers[0].ResourceURL[0].Template, e.http.URL+"/tiles/photo/") {
		t.Errorf("WMTS layers: %+v", caps.Layers)
	}

	// Viewer page, and the redirect to it.
	v := e.do("GET", "/tiles/roads/", nil)
	if v.status != 200 || !strings.Contains(string(v.body), "maplibre-gl.js") {
		t.Errorf("viewer: %d", v.status)
	}
	if rd := e.do("GET", "/tiles/roads", nil); rd.status != 301 || rd.header.Get("Location") != "/tiles/roads/" {
		t.Errorf("redirect: %d %q", rd.status, rd.header.Get("Location"))
	}
	if idx := e.do("GET", "/", nil); idx.status != 200 || !strings.Contains(string(idx.body), `href="/tiles/roads/"`) || strings.Contains(string(idx.body), "/tiles/broken/") {
		t.Errorf("index page: %d", idx.status)
	}
	h := decodeJSON[map[string]any](t, e.do("GET", "/health", nil).body)
	if h["status"] != "ok" || h["tilesets"].(float64) != 3 || h["tilesetsUnreadable"].(float64) != 1 {
		t.Errorf("health = %v", h)
	}
	e.do("GET", "/tiles/roads/0/0/0", nil)
	m := e.do("GET", "/metrics", nil)
	for _, want := range []string{"tessera_http_requests_total", `route="GET /tiles/{tilesId}/tiles.json"`, "tessera_tiles_served_total", "tessera_tile_cache_hits_total"} {
		if !strings.Contains(string(m.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestLimitsAndBadInput(t *testing.T) {
	e := newEnv(t, nil)
	checkError(t, e.do("GET", "/tiles/roads/tiles.json?x="+strings.Repeat("a", 9000), nil), 414)
	checkError(t, e.do("GET", "/nothing/here", nil), 404)
	// A JSON body larger than the limit.
	big := `{"name":"` + strings.Repeat("x", 2<<20) + `"}`
	roads, _ := e.srv.Catalog.Get("roads")
	checkError(t, e.do("POST", "/v1/admin/tiles/"+roads.ID, strings.NewReader(big), "Authorization", "Basic "+token), 413)
	for _, body := range []string{"", "{", "[]", `{"name": 5}`, `{"nope": true}`, `{"name":"a"} {"name":"b"}`} {
		checkError(t, e.do("POST", "/v1/admin/tiles/"+roads.ID, strings.NewReader(body), "Authorization", "Basic "+token), 400)
	}
}

func TestAdminAuth(t *testing.T) {
	e := newEnv(t, nil)
	for _, h := range []string{"", "Basic", "Basic wrong", "Bearer " + token, "basic " + token + "x"} {
		r := e.do("GET", "/v1/admin/tiles", nil, "Authorization", h)
		checkError(t, r, 401)
	}
	for _, h := range []string{"Basic " + token, "basic " + token} {
		if r := e.do("GET", "/v1/admin/tiles", nil, "Authorization", h); r.status != 200 {
			t.Errorf("%q: %d", h, r.status)
		}
	}
}

type summary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	FileName  string `json:"fileName"`
	Published bool   `json:"published"`
	Type      string `json:"type"`
	TileType  string `json:"tileType"`
	State     string `json:"state"`
	Error     string `json:"error"`
}

type detail struct {
	summary
	URLs map[string]string `json:"urls"`
}

func TestAdminTilesets(t *testing.T) {
	e := newEnv(t, nil)
	list := decodeJSON[struct{ Items []summary }](t, e.admin("GET", "/tiles", nil).body)
	if len(list.Items) != 3 {
		t.Fatalf("items = %+v", list.Items)
	}
	byName := map[string]summary{}
	for _, it := range list.Items {
		byName[it.Name] = it
	}
	if s := byName["roads"]; s.Type != "mbtiles" || s.TileType != "vector" || !s.Published || s.FileName != "roads.mbtiles" || s.State != "ok" {
		t.Errorf("roads summary = %+v", s)
	}
	if s := byName["broken"]; s.State != "error" || s.Error == "" {
		t.Errorf("broken summary = %+v", s)
	}
	page := decodeJSON[struct{ Items []summary }](t, e.admin("GET", "/tiles?offset=1&limit=1", nil).body)
	if len(page.Items) != 1 || page.Items[0].Name != list.Items[1].Name {
		t.Errorf("page = %+v", page.Items)
	}
	for _, q := range []string{"?limit=0", "?limit=x", "?offset=-1"} {
		checkError(t, e.admin("GET", "/tiles"+q, nil), 400)
	}

	id := byName["roads"].ID
	d := decodeJSON[detail](t, e.admin("GET", "/tiles/"+id, nil).body)
	for k, want := range map[string]string{
		"embeddable": e.http.URL + "/tiles/roads/", "tilejson": e.http.URL + "/tiles/roads/tiles.json",
		"ogcTiles": e.http.URL + "/tiles/roads/tiles", "wmts": e.http.URL + "/tiles/roads/WMTSCapabilities.xml",
		"xyz": e.http.URL + "/tiles/roads/{z}/{x}/{y}.pbf",
	} {
		if d.URLs[k] != want {
			t.Errorf("urls[%s] = %q, want %q", k, d.URLs[k], want)
		}
	}
	checkError(t, e.admin("GET", "/tiles/00000000-0000-0000-0000-000000000000", nil), 404)

	// Rename; the old name is gone and the new one serves.
	d = decodeJSON[detail](t, e.admin("POST", "/tiles/"+id, map[string]any{"name": "streets"}).body)
	if d.Name != "streets" || e.do("GET", "/tiles/streets/0/0/0", nil).status != 200 || e.do("GET", "/tiles/roads/0/0/0", nil).status != 404 {
		t.Errorf("rename: %+v", d)
	}
	checkError(t, e.admin("POST", "/tiles/"+id, map[string]any{"name": "photo"}), 409)
	checkError(t, e.admin("POST", "/tiles/"+id, map[string]any{"name": "../../etc"}), 400)
	// Publication follows the state table, idempotently.
	for _, step := range []struct {
		path string
		want bool
	}{{"/unpublish", false}, {"/unpublish", false}, {"/publish", true}, {"/publish", true}} {
		d = decodeJSON[detail](t, e.admin("POST", "/tiles/"+id+step.path, nil).body)
		if d.Published != step.want {
			t.Errorf("%s: published = %v", step.path, d.Published)
		}
	}
	d = decodeJSON[detail](t, e.admin("POST", "/tiles/"+id, map[string]any{"published": false}).body)
	if d.Published {
		t.Error("change published=false ignored")
	}

	// Rescan finds a new file; delete removes the file; reload drops dead records.
	writeRaster(t, filepath.Join(e.dir, "tiles", "extra.mbtiles"))
	rs := decodeJSON[struct{ Items []summary }](t, e.admin("POST", "/tiles/rescan", nil).body)
	if len(rs.Items) != 4 {
		t.Errorf("rescan items = %d", len(rs.Items))
	}
	extra, _ := e.srv.Catalog.Get("extra")
	del := decodeJSON[map[string][]string](t, e.admin("DELETE", "/tiles/"+extra.ID, nil).body)
	if len(del["removed"]) != 1 || del["removed"][0] != extra.ID {
		t.Errorf("delete = %v", del)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "tiles", "extra.mbtiles")); !os.IsNotExist(err) {
		t.Error("delete left the file")
	}
	os.Remove(filepath.Join(e.dir, "tiles", "broken.mbtiles"))
	broken, _ := e.srv.Catalog.Get("broken")
	rl := decodeJSON[map[string][]string](t, e.admin("POST", "/tiles/reload", nil).body)
	if len(rl["removed"]) != 1 || rl["removed"][0] != broken.ID {
		t.Errorf("reload removed = %v", rl)
	}
	checkError(t, e.admin("POST", "/tiles/reload?removeRemote=maybe", nil), 400)
}

func TestAdminRemote(t *testing.T) {
	// The remote archive is served on loopback: allow it.
	e := newEnv(t, func(c *config.Config) { c.RemoteAllow = []string{"127.0.0.0/8", "::1"} })
	archive := fixtures.Path(t, "fixtures/martin/tests/fixtures/pmtiles/png.pmtiles")
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, archive)
	}))
	defer remote.Close()
	r := e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": remote.URL + "/world/png.pmtiles"})
	if r.status != 200 {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	s := decodeJSON[summary](t, r.body)
	if s.Name != "png" || s.Type != "pmtiles" || s.TileType != "raster" {
		t.Errorf("remote summary = %+v", s)
	}
	tile := e.do("GET", "/tiles/png/0/0/0.png", nil)
	if tile.status != 200 || !bytes.HasPrefix(tile.body, []byte("\x89PNG")) {
		t.Errorf("remote tile: %d", tile.status)
	}
	checkError(t, e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": remote.URL + "/world/png.pmtiles"}), 409)
	checkError(t, e.admin("POST", "/tiles/add", map[string]string{"storage": "ftp", "url": "ftp://x/y.pmtiles"}), 400)
	checkError(t, e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": "not a url"}), 400)
	checkError(t, e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": "http://127.0.0.1:1/none.pmtiles"}), 400)

	// The record survives a restart; reload with removeRemote drops it.
	srv2, err := New(context.Background(), e.srv.cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := srv2.Catalog.Get("png"); !ok || got.ID != s.ID || got.State != "ok" {
		t.Errorf("after restart: %+v %v", got, ok)
	}
	srv2.Close()
	rl := decodeJSON[map[string][]string](t, e.admin("POST", "/tiles/reload?removeRemote=true", nil).body)
	if len(rl["removed"]) != 1 || rl["removed"][0] != s.ID {
		t.Errorf("reload removeRemote = %v", rl)
	}
}

func TestAdminRemoteS3(t *testing.T) {
	archive := fixtures.Path(t, "fixtures/martin/tests/fixtures/pmtiles/png.pmtiles")
	endpoint, root := fixtures.VersityGW(t, "TESSERAKEY", "tessera-secret")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "maps"), 0o755)
	os.WriteFile(filepath.Join(root, "maps", "aerial.pmtiles"), data, 0o644)
	t.Setenv("AWS_ACCESS_KEY_ID", "TESSERAKEY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tessera-secret")
	e := newEnv(t, func(c *config.Config) { c.RemoteAllow = []string{"127.0.0.0/8", "::1"} })
	url := "s3://maps/aerial.pmtiles?endpoint=" + endpoint + "&region=us-east-1"
	r := e.admin("POST", "/tiles/add", map[string]string{"storage": "s3", "url": url})
	if r.status != 200 {
		t.Fatalf("add s3: %d %s", r.status, r.body)
	}
	if s := decodeJSON[summary](t, r.body); s.Name != "aerial" || s.Type != "pmtiles" {
		t.Errorf("summary = %+v", s)
	}
	tile := e.do("GET", "/tiles/aerial/0/0/0.png", nil)
	if tile.status != 200 || !bytes.HasPrefix(tile.body, []byte("\x89PNG")) {
		t.Errorf("S3 tile: %d", tile.status)
	}
	// Wrong credentials: the archive cannot be opened, and nothing is added.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	checkError(t, e.admin("POST", "/tiles/add", map[string]string{"storage": "s3", "url": "s3://maps/aerial.pmtiles?endpoint=" + endpoint + "&region=us-east-1&x=1"}), 400)
}
