package server

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/loadmix"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/tiler"
)

func decodeImage(t *testing.T, r resp) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("not an image (%d %s): %v", r.status, r.header.Get("Content-Type"), err)
	}
	return img
}

// colourCount counts the distinct colours of an image (of a paletted one,
// the palette entries used).
func colourCount(img image.Image) int {
	if p, ok := img.(*image.Paletted); ok {
		var used [256]bool
		n := 0
		for _, i := range p.Pix {
			if !used[i] {
				used[i] = true
				n++
			}
		}
		return n
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	return len(colours)
}

func TestMapRasterTiles(t *testing.T) {
	e := mapEnv(t)
	for _, tt := range []struct {
		path string
		side int
	}{
		{"/maps/city/0/0/0.png", 512},
		{"/maps/city/0/0/0@2x.png", 1024},
		{"/maps/city/256/0/0/0.png", 256},
		{"/maps/city/256/1/1/0@2x.png", 512},
		{"/maps/city/3/4/2.png", 512},
	} {
		r := e.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != "image/png" || r.header.Get("ETag") == "" || r.header.Get("Cache-Control") == "" {
			t.Fatalf("%s: %d %q etag %q", tt.path, r.status, r.header.Get("Content-Type"), r.header.Get("ETag"))
		}
		if b := decodeImage(t, r).Bounds(); b.Dx() != tt.side || b.Dy() != tt.side {
			t.Errorf("%s: %v, want %d px", tt.path, b, tt.side)
		}
		if nm := e.do("GET", tt.path, nil, "If-None-Match", r.header.Get("ETag")); nm.status != 304 {
			t.Errorf("%s with its ETag: %d, want 304", tt.path, nm.status)
		}
	}
	// The map draws its roads: a tile with the road is not one colour.
	img := decodeImage(t, e.do("GET", "/maps/city/0/0/0.png", nil))
	if colourCount(img) < 2 {
		t.Errorf("tile 0/0/0 is one colour: the roads are not drawn")
	}

	// The documents describe exactly these URLs.
	for _, doc := range []string{"/maps/city/tiles.json", "/maps/city/256/tiles.json"} {
		tj := decodeJSON[struct {
			Tiles []string `json:"tiles"`
		}](t, e.do("GET", doc, nil).body)
		if len(tj.Tiles) != 1 {
			t.Fatalf("%s: tiles %v", doc, tj.Tiles)
		}
		u := strings.NewReplacer("{z}", "2", "{x}", "1", "{y}", "3").Replace(tj.Tiles[0])
		path := strings.TrimPrefix(u, e.http.URL)
		if r := e.do("GET", path, nil); r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "image/") {
			t.Errorf("%s advertises %s: %d", doc, path, r.status)
		}
	}

	for path, status := range map[string]int{
		"/maps/city/0/1/0.png":     400, // outside the grid
		"/maps/city/1/0/2.png":     400,
		"/maps/city/23/0/0.png":    400,
		"/maps/city/0/0/0.jpg":     400, // the map serves png
		"/maps/city/0/0/0.gif":     400,
		"/maps/city/0/0/0":         400,
		"/maps/city/a/0/0.png":     400,
		"/maps/city/0/0/0@3x.png":  400,
		"/maps/nosuch/0/0/0.png":   404,
		"/maps/bad/0/0/0.png":      404, // a map whose style is broken is not served
		"/maps/city/512/0/0/0.png": 404,
	} {
		r := e.do("GET", path, nil)
		if r.status != status {
			t.Errorf("%s: %d, want %d (%s)", path, r.status, status, r.body)
			continue
		}
		checkError(t, r, status)
	}
}

func TestStaticMaps(t *testing.T) {
	e := mapEnv(t)
	q := url.Values{}
	q.Add("path", "stroke:red|width:4|-10,-10|10,10|30,5")
	q.Add("markers", "2.35,48.85,P")
	for _, tt := range []struct {
		path string
		w, h int
	}{
		{"/maps/city/static/0,0,1/300x200.png?" + q.Encode(), 300, 200},
		{"/maps/city/static/0,0,1/300x200@2x.png?" + q.Encode(), 600, 400},
		{"/maps/city/static/-20,-20,40,50/256x256.png?padding=0.05", 256, 256},
		{"/maps/city/static/auto/400x300.png?" + q.Encode(), 400, 300},
	} {
		r := e.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %d %s", tt.path, r.status, r.body)
		}
		if b := decodeImage(t, r).Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("%s: %v", tt.path, b)
		}
	}
	for path, status := range map[string]int{
		"/maps/city/static/0,0,1/3000x200.png":                                     400,
		"/maps/city/static/0,0,99/300x200.png":                                     400,
		"/maps/city/static/auto/300x200.png":                                       400, // nothing to fit
		"/maps/city/static/0,0,1/300x200.png?path=1,2":                             400,
		"/maps/city/static/0,0,1/300x200.png?markers=icon:nope|0,0":                400,
		"/maps/nosuch/static/0,0,1/300x200.png":                                    404,
		"/maps/city/static/0,0,1/300x200.png?path=" + strings.Repeat("1,1|", 3000): 414,
	} {
		r := e.do("GET", path, nil)
		if r.status != status {
			t.Errorf("%s: %d, want %d (%s)", path[:min(len(path), 80)], r.status, status, r.body)
			continue
		}
		if status != 414 {
			checkError(t, r, status)
		}
	}
	if r := e.do("GET", "/maps/city/static/0,0,1/100000x200.png", nil); r.status != 400 || !strings.Contains(string(r.body), "width: 100000 is outside 1..2048") {
		t.Errorf("width 100000: %d %s, want 400 naming the limit", r.status, r.body)
	}
}

// TestStaticMapFormats: a map whose tiles are png serves its static images
// in png, jpg and webp (spec 002); its tiles stay png only.
func TestStaticMapFormats(t *testing.T) {
	e := mapEnv(t)
	for ext, mediaType := range map[string]string{"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"} {
		r := e.do("GET", "/maps/city/static/0,0,1/300x200."+ext, nil)
		if r.status != 200 || r.header.Get("Content-Type") != mediaType {
			t.Errorf("%s: %d %s %s", ext, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		if ext == "webp" {
			continue // image/ registers no WebP decoder in this test
		}
		if b := decodeImage(t, r).Bounds(); b.Dx() != 300 || b.Dy() != 200 {
			t.Errorf("%s: %v", ext, b.Size())
		}
	}
	checkError(t, e.do("GET", "/maps/city/0/0/0.jpg", nil), 400)
}

// TestStaticMapFitZoom: a single marker on an auto image is shown at the
// deepest zoom of the map's data (the roads tileset ends at zoom 3), not
// at zoom 16 past it.
func TestStaticMapFitZoom(t *testing.T) {
	e := mapEnv(t)
	auto := e.do("GET", "/maps/city/static/auto/300x200.png?markers=0,0", nil)
	at3 := e.do("GET", "/maps/city/static/0,0,3/300x200.png?markers=0,0", nil)
	at16 := e.do("GET", "/maps/city/static/0,0,16/300x200.png?markers=0,0", nil)
	for _, r := range []resp{auto, at3, at16} {
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
	if !bytes.Equal(auto.body, at3.body) {
		t.Error("a single marker is not shown at the data's deepest zoom (3)")
	}
	if bytes.Equal(at3.body, at16.body) {
		t.Error("zooms 3 and 16 draw the same picture: the test shows nothing")
	}
}

func TestWMSGetMap(t *testing.T) {
	e := mapEnv(t)
	for _, tt := range []struct {
		path   string
		w, h   int
		format string
	}{
		{"/maps/city/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=city&STYLES=&CRS=EPSG:3857&BBOX=-20037508,-20037508,20037508,20037508&WIDTH=300&HEIGHT=300&FORMAT=image/png", 300, 300, "image/png"},
		{"/maps/wms?service=WMS&request=GetMap&version=1.1.1&layers=city&styles=&srs=EPSG:4326&bbox=-180,-80,180,80&width=400&height=200&format=image/jpeg", 400, 200, "image/jpeg"},
		{"/maps/wms?service=WMS&request=GetMap&version=1.3.0&layers=city&styles=&crs=EPSG:4326&bbox=-80,-180,80,180&width=333&height=111&format=image/png&transparent=true", 333, 111, "image/png"},
	} {
		r := e.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != tt.format {
			t.Fatalf("%s: %d %s", tt.path, r.status, r.body)
		}
		if b := decodeImage(t, r).Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("%s: %v", tt.path, b)
		}
	}
	for path, code := range map[string]string{
		"/maps/wms?service=WMS&request=GetMap&version=1.3.0&layers=nosuch&styles=&crs=EPSG:3857&bbox=0,0,1,1&width=10&height=10&format=image/png":       "LayerNotDefined",
		"/maps/city/wms?service=WMS&request=GetMap&version=1.3.0&layers=city&styles=&crs=EPSG:2154&bbox=0,0,1,1&width=10&height=10&format=image/png":    "InvalidCRS",
		"/maps/city/wms?service=WMS&request=GetMap&version=1.3.0&layers=city&styles=&crs=EPSG:3857&bbox=0,0,1,1&width=10&height=10&format=image/gif":    "InvalidFormat",
		"/maps/city/wms?service=WMS&request=GetMap&version=1.3.0&layers=city&styles=&crs=EPSG:3857&bbox=0,0,1,1&width=99999&height=10&format=image/png": "InvalidParameterValue",
	} {
		r := e.do("GET", path, nil)
		if r.status != 400 || !strings.Contains(string(r.body), code) || !strings.Contains(r.header.Get("Content-Type"), "xml") {
			t.Errorf("%s: %d %s, want a %s exception", path, r.status, r.body, code)
		}
	}
	// The capabilities declare GetMap with the size limit.
	caps := e.do("GET", "/maps/city/wms?service=WMS&request=GetCapabilities", nil)
	if !strings.Contains(string(caps.body), "<GetMap>") || !strings.Contains(string(caps.body), "<MaxWidth>2534</MaxWidth>") {
		t.Errorf("capabilities: %s", caps.body)
	}
}

// TestWMSGetMapLimits: what the capabilities promise is drawn (the largest
// image shows its roads, not one colour), odd shapes of the largest size
// and narrow geographic boxes are drawn, and past the limit is a
// ServiceException (400), never a 500.
func TestWMSGetMapLimits(t *testing.T) {
	e := mapEnv(t)
	get := "/maps/city/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=city&STYLES=&FORMAT=image/png&"
	big := e.do("GET", get+"CRS=EPSG:3857&BBOX=-12000000,-12000000,12792502,12792502&WIDTH=2534&HEIGHT=2534", nil)
	if big.status != 200 {
		t.Fatalf("the largest image: %d %s", big.status, big.body)
	}
	img := decodeImage(t, big)
	if b := img.Bounds(); b.Dx() != 2534 || b.Dy() != 2534 {
		t.Fatalf("the largest image is %v", b.Size())
	}
	if colourCount(img) < 2 {
		t.Error("the largest image is one colour: its roads are not drawn")
	}
	for _, tt := range []struct {
		query string
		w, h  int
	}{
		{"CRS=CRS:84&BBOX=-180,-85,180,85&WIDTH=1&HEIGHT=2534", 1, 2534},
		{"CRS=CRS:84&BBOX=-180,-85,180,85&WIDTH=2534&HEIGHT=1", 2534, 1},
		{"CRS=EPSG:4326&BBOX=0,0,0.0001,10&WIDTH=20&HEIGHT=2534", 20, 2534},
		{"CRS=EPSG:4326&BBOX=-80,5,80,5.00001&WIDTH=2534&HEIGHT=2534", 2534, 2534},
		{"CRS=EPSG:4326&BBOX=10,10,10.000000001,10.000000001&WIDTH=64&HEIGHT=64", 64, 64},
		{"CRS=EPSG:3857&BBOX=0,0,1,100000&WIDTH=2534&HEIGHT=2", 2534, 2},
	} {
		r := e.do("GET", get+tt.query, nil)
		if r.status != 200 {
			t.Errorf("%s: %d %s", tt.query, r.status, r.body)
			continue
		}
		if b := decodeImage(t, r).Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("%s: %v", tt.query, b.Size())
		}
	}
	for _, q := range []string{
		"CRS=EPSG:3857&BBOX=0,0,1,1&WIDTH=2535&HEIGHT=10",
		"CRS=CRS:84&BBOX=-180,-85,180,85&WIDTH=1&HEIGHT=4096",
		"CRS=EPSG:3857&BBOX=0,0,1,1&WIDTH=4096&HEIGHT=4096",
	} {
		r := e.do("GET", get+q, nil)
		if r.status != 400 || !strings.Contains(string(r.body), "InvalidParameterValue") {
			t.Errorf("%s: %d %s, want an InvalidParameterValue exception", q, r.status, r.body)
		}
	}
}

// TestRenderQueueFull holds the only render worker on a GeoJSON source
// whose server answers only when told: a second render, which finds no
// worker free within half the render timeout, is refused without
// rendering (503 with Retry-After), and a render past render_timeout is
// cut (503); /metrics counts both.
func TestRenderQueueFull(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Write([]byte(`{"type": "FeatureCollection", "features": []}`))
	}))
	defer slow.Close()
	defer close(release)
	styleJSON := `{"version": 8, "sources": {"g": {"type": "geojson", "data": "` + slow.URL + `/data.geojson"}},
	  "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#fff"}}, {"id": "g", "type": "line", "source": "g"}]}`
	e := newEnv(t, func(c *config.Config) {
		c.RenderWorkers, c.RenderQueue, c.RenderTimeout = 1, 0, 2*time.Second
		c.RemoteAllow = []string{"127.0.0.0/8"}
		os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "slow"), 0o755)
		os.WriteFile(filepath.Join(c.DataDir, MapsDir, "slow", "style.json"), []byte(styleJSON), 0o644)
	})
	first := make(chan resp, 1)
	go func() { first <- e.do("GET", "/maps/slow/0/0/0.png", nil) }()
	// Wait until the first render holds the worker.
	deadline := time.Now().Add(5 * time.Second)
	for e.srv.images.QueueStats().Running == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	busy := e.do("GET", "/maps/slow/1/0/0.png", nil)
	if s := e.srv.images.QueueStats(); s.Running != 1 || s.Refused != 1 {
		t.Errorf("after the second render gave up: %+v, want the first still running and one refused", s)
	}
	if busy.status != 503 || busy.header.Get("Retry-After") == "" {
		t.Errorf("second render with the queue full: %d %s", busy.status, busy.body)
	}
	checkError(t, busy, 503)
	// The first render is cut at its deadline.
	r := <-first
	if r.status != 503 {
		t.Errorf("render past its deadline: %d %s", r.status, r.body)
	}
	checkError(t, r, 503)
	// Both are counted.
	m := string(e.do("GET", "/metrics", nil).body)
	for _, want := range []string{"tessera_renders_refused_total 1", "tessera_render_timeouts_total 1", "tessera_render_panics_total 0"} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}

	cfg := config.Default()
	cfg.RenderTimeout = 0
	if err := cfg.Validate(); err == nil {
		t.Error("render_timeout 0 accepted")
	}
}

// TestRasterTileAfterTilesetChange replaces the map's tileset on disk: the
// next raster tile is drawn from the new data, not from the renderer's
// decoded copy of the old one.
func TestRasterTileAfterTilesetChange(t *testing.T) {
	e := mapEnv(t)
	before := decodeImage(t, e.do("GET", "/maps/city/0/0/0.png", nil))
	path := filepath.Join(e.dir, "tiles", "roads.mbtiles")
	layers := []tiler.Layer{{Name: "roads", MinZoom: 0, MaxZoom: 3, Features: []tiler.Feature{
		{ID: 1, Geometry: orb.LineString{{-120, 60}, {120, -60}}, Properties: map[string]any{"name": "New road"}},
	}}}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = 0, 3
	opts.Logger = slog.New(slog.DiscardHandler)
	tmp := path + ".new"
	if _, err := ingest.BuildMBTiles(context.Background(), layers, opts, tmp, map[string]string{"name": "Roads"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Rescan(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := decodeImage(t, e.do("GET", "/maps/city/0/0/0.png", nil))
	// The new road crosses the tile's top-left quarter where the old one
	// did not pass: that pixel must have changed.
	x, y := 512*(180-120)/360+20, 0
	for ; y < 512; y++ {
		if before.At(x, y) != after.At(x, y) {
			break
		}
	}
	if y == 512 {
		t.Errorf("column %d of the tile is the same after the tileset was replaced: drawn from stale data", x)
	}
}

// iconServer serves a 4x4 PNG at every path after delay (or when the
// request ends, with hold), counting the requests in flight at once.
type iconServer struct {
	*httptest.Server
	mu             sync.Mutex
	inflight, most int
	served         int
	delay          time.Duration
	hold           bool
}

func newIconServer(t *testing.T, delay time.Duration, hold bool) *iconServer {
	var buf bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	png.Encode(&buf, img)
	s := &iconServer{delay: delay, hold: hold}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inflight++
		s.most = max(s.most, s.inflight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}()
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
		if s.hold {
			<-r.Context().Done()
			return
		}
		s.mu.Lock()
		s.served++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "image/png")
		w.Write(buf.Bytes())
	}))
	t.Cleanup(s.Close)
	return s
}

// iconQuery is a static map query with n markers, each with its own icon
// URL on srv.
func iconQuery(srv string, n int) string {
	q := url.Values{}
	for i := range n {
		q.Add("markers", fmt.Sprintf("icon:%s/icon%d.png|%d,%d", srv, i, i, i))
	}
	return q.Encode()
}

// TestStaticMapIcons: marker icons by URL are read at once (at most 8 in
// flight), each distinct URL once, and within the render's budget: 20
// icons answering in 300 ms make a picture in about a second, not six;
// icons that never answer end the request at render_timeout with a 400
// naming the budget, not after 5 s per icon.
func TestStaticMapIcons(t *testing.T) {
	e := mapEnv(t, func(c *config.Config) {
		c.RemoteAllow = []string{"127.0.0.0/8"}
		c.RenderTimeout = 2 * time.Second
	})
	slow := newIconServer(t, 300*time.Millisecond, false)
	r := e.do("GET", "/maps/city/static/0,0,1/300x200.png?"+iconQuery(slow.URL, 20)+"&"+url.Values{"markers": {"icon:" + slow.URL + "/icon0.png|-5,5"}}.Encode(), nil)
	if r.status != 200 {
		t.Fatalf("20 slow icons: %d %s", r.status, r.body)
	}
	decodeImage(t, r)
	slow.mu.Lock()
	most, served := slow.most, slow.served
	slow.mu.Unlock()
	if most < 2 || most > 8 {
		t.Errorf("%d icons were read at once, want 2 to 8", most)
	}
	if served != 20 {
		t.Errorf("%d icons read for 20 distinct URLs", served)
	}

	stuck := newIconServer(t, 0, true)
	start := time.Now()
	r = e.do("GET", "/maps/city/static/0,0,1/300x200.png?"+iconQuery(stuck.URL, 20), nil)
	took := time.Since(start)
	if r.status != 400 || !strings.Contains(string(r.body), "within 2s") {
		t.Errorf("icons that never answer: %d %s, want 400 naming the budget", r.status, r.body)
	}
	checkError(t, r, 400)
	if took > 4*time.Second {
		t.Errorf("icons that never answer held the request %v; the budget is 2 s", took)
	}
}

// labelStyle writes many long labels on a grid of points, so that labels
// cross the edges of 256-pixel tiles at zooms 2 and 3.
func labelStyle() string {
	var feats []string
	for lon := -170.0; lon <= 170; lon += 9.5 {
		for lat := -70.0; lat <= 70; lat += 7.3 {
			feats = append(feats, fmt.Sprintf(`{"type": "Feature", "properties": {"name": "Tyrrhenian Sea %d %d"}, "geometry": {"type": "Point", "coordinates": [%g, %g]}}`, int(lon), int(lat), lon, lat))
		}
	}
	return `{"version": 8, "glyphs": "/fonts/{fontstack}/{range}.pbf",
	  "sources": {"p": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [` + strings.Join(feats, ",") + `]}}},
	  "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#fff"}},
	    {"id": "names", "type": "symbol", "source": "p", "layout": {"text-field": ["get", "name"], "text-font": ["Open Sans Regular"], "text-size": 14, "text-max-width": 30}}]}`
}

// TestSeamless256Tiles: a 256-pixel tile is the quarter of the 512-pixel
// tile over it, so 256-pixel tiles join as seamlessly as 512-pixel ones
// (whose seams the renderer's TestSeamlessLabels checks): the four
// quarters of each 512-pixel tile, fetched as 256-pixel tiles, are its
// pixels, labels crossing their edges included, at 1x and @2x, on both
// sides of an edge of the 512-pixel grid.
func TestSeamless256Tiles(t *testing.T) {
	if fixtures.SharedDir() == "" {
		t.Skip("no shared fixtures: no font to draw labels with")
	}
	e := mapEnv(t, func(c *config.Config) {
		os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "labels"), 0o755)
		os.WriteFile(filepath.Join(c.DataDir, MapsDir, "labels", "style.json"), []byte(labelStyle()), 0o644)
	})
	crossing := 0
	for _, scale := range []string{"", "@2x"} {
		side := 256
		if scale != "" {
			side = 512
		}
		for _, parent := range [][3]int{{2, 1, 1}, {2, 2, 1}} { // neighbours across a 512-pixel edge
			z, px, py := parent[0], parent[1], parent[2]
			whole := decodeImage(t, e.do("GET", fmt.Sprintf("/maps/labels/%d/%d/%d%s.png", z, px, py, scale), nil))
			var quarters [4]image.Image
			for q := range quarters {
				r := e.do("GET", fmt.Sprintf("/maps/labels/256/%d/%d/%d%s.png", z+1, 2*px+q%2, 2*py+q/2, scale), nil)
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				quarters[q] = decodeImage(t, r)
			}
			differ := 0
			for q, img := range quarters {
				for y := range side {
					for x := range side {
						r1, g1, b1, _ := img.At(x, y).RGBA()
						r2, g2, b2, _ := whole.At(q%2*side+x, q/2*side+y).RGBA()
						if r1 != r2 || g1 != g2 || b1 != b2 {
							differ++
						}
					}
				}
			}
			if differ > 0 {
				t.Errorf("%d/%d/%d%s: %d pixels of its 256-pixel quarters differ from it", z, px, py, scale, differ)
			}
			// Labels cross the quarters' inner edges: ink on both sides.
			for y := range 2 * side {
				if dark(whole.At(side-1, y)) && dark(whole.At(side, y)) {
					crossing++
				}
			}
		}
	}
	if crossing == 0 {
		t.Error("no label crosses a seam between 256-pixel tiles: the test shows nothing")
	}
}

func dark(c color.Color) bool {
	r, _, _, _ := c.RGBA()
	return r < 0x8000
}

// TestHostileLoad mixes plain requests (a cached raster tile, a vector
// tile) with hostile ones (huge static maps with many paths and markers,
// WMS at the largest size, markers whose icons never come): every plain
// request is answered 200, every hostile one is answered (200, or cut
// with 400 or 503, never 500 or no answer) within the render's bounds
// (1.5 times render_timeout, plus room for encoding on a busy machine:
// 5 times in all; before issue 17, icons alone held a request 82 s),
// and some are cut. The plain requests keep their latency (the issue's
// bound): their p99 under the hostile load is within twice the quiet
// server's, taken as the larger of the p99s measured before and after the
// hostile requests in the same test, so that a machine whose own load
// changes during the run moves both sides, and at least quietFloor
// (renders leave a core free, see cpuslots; bench/hostile.sh measures it
// on the demo world).
// quietFloor is the least quiet p99 TestHostileLoad compares with: two of
// the Go scheduler's 10 ms time slices. Below it the test's own clients and
// the garbage collection of the hostile renders' pictures, all in the
// test's process, and the machine's other load decide: on two cores at
// load 25 the plain p99 under the hostile load was 24-37 ms, against a
// quiet p99 of 3 to 75 ms from one run to the next (before cpuslots,
// 78-461 ms).
const quietFloor = 20 * time.Millisecond

func TestHostileLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	const timeout = 2 * time.Second
	e := mapEnv(t, func(c *config.Config) {
		c.RemoteAllow = []string{"127.0.0.0/8"}
		c.RenderTimeout = timeout
	})
	icons, err := loadmix.StartIconServer(-1)
	if err != nil {
		t.Fatal(err)
	}
	defer icons.Close()
	plainPaths := []string{"/maps/city/0/0/0.png", "/tiles/roads/0/0/0.pbf"}
	for _, p := range plainPaths { // the raster tile cached
		if r := e.do("GET", p, nil); r.status != 200 {
			t.Fatalf("%s: %d", p, r.status)
		}
	}
	rep, err := loadmix.Run(context.Background(), e.http.Client(), loadmix.Plan{
		Base: e.http.URL, Plain: plainPaths, Hostile: loadmix.HostilePaths("city", "city", ogc.MaxSize, icons.URL),
		PlainClients: 4, PlainRequests: 400, HostileClients: 6, HostileRequests: 18, MaxTime: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	for phase, rs := range map[string][]loadmix.Result{"quiet": rep.Quiet, "loaded": rep.Loaded, "quiet after": rep.After} {
		if err := loadmix.FirstError(rs); err != nil {
			t.Errorf("%s plain request: %v", phase, err)
		}
		if st := loadmix.Statuses(rs); st[200] != len(rs) {
			t.Errorf("%s plain requests answered %v, want all 200", phase, st)
		}
	}
	if err := loadmix.FirstError(rep.Hostile); err != nil {
		t.Errorf("hostile request without an answer: %v", err)
	}
	st := loadmix.Statuses(rep.Hostile)
	for status, n := range st {
		if status != 200 && status != 400 && status != 503 {
			t.Errorf("%d hostile requests answered %d", n, status)
		}
	}
	if st[400]+st[503] == 0 {
		t.Errorf("no hostile request was cut: %v", st)
	}
	// A render that ends just before its deadline is still encoded: on a
	// machine busy with other tests, encoding a 4096x4096 picture takes
	// seconds. (The race detector slows it many times more.)
	if d := loadmix.Longest(rep.Hostile); d > 5*timeout && !raceDetector {
		t.Errorf("a hostile request took %v; render_timeout is %v", d, timeout)
	}
	// The server counted what it cut, and no panic.
	if qs := e.srv.images.QueueStats(); qs.Panicked != 0 || qs.Admitted != 0 || qs.Running != 0 {
		t.Errorf("render queue after the load: %+v", qs)
	} else if st[503] > 0 && qs.Refused+qs.TimedOut == 0 {
		t.Errorf("%d answers 503 but the queue counted no render refused or cut: %+v", st[503], qs)
	}
	quiet := max(loadmix.Percentile(rep.Quiet, 0.99), loadmix.Percentile(rep.After, 0.99), quietFloor)
	loaded := loadmix.Percentile(rep.Loaded, 0.99)
	t.Logf("plain p50/p99: quiet %v/%v, under hostile load %v/%v, quiet after %v/%v; hostile answers %v, longest %v",
		loadmix.Percentile(rep.Quiet, 0.5), loadmix.Percentile(rep.Quiet, 0.99),
		loadmix.Percentile(rep.Loaded, 0.5), loaded, loadmix.Percentile(rep.After, 0.5), loadmix.Percentile(rep.After, 0.99),
		st, loadmix.Longest(rep.Hostile))
	// The race detector slows the renders' goroutines and the plain
	// requests' unevenly: the bound is not asserted there.
	if loaded > 2*quiet && !raceDetector {
		t.Errorf("plain p99 under hostile load %v, more than twice the quiet server's %v", loaded, quiet)
	}
}

// TestWorkBoundRefused serves a map whose style asks for more drawing than
// one render may do (300 circles each covering the picture many times
// over, as testdata/hostile/circle-huge.json of the renderer): its raster
// tile and static map are a 400 with a JSON message, its WMS GetMap a
// ServiceException (400), each logged at warn with the map's id and
// counted in /metrics; the server goes on drawing other maps.
func TestWorkBoundRefused(t *testing.T) {
	var points []string
	for i := range 300 {
		points = append(points, fmt.Sprintf(`{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [%g, %g]}}`,
			float64(i%20)*0.5-5, float64(i/20)*0.5-4))
	}
	styleJSON := `{"version": 8, "sources": {"p": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [` +
		strings.Join(points, ",") + `]}}}, "layers": [{"id": "c", "type": "circle", "source": "p",
	  "paint": {"circle-radius": 100000, "circle-stroke-width": 1e5, "circle-blur": 1e3, "circle-opacity": 0.5}}]}`
	var log fixtures.SyncBuffer
	e := newLoggedEnv(t, func(c *config.Config) {
		c.RenderTimeout = time.Minute // the work bound ends the renders, not their deadline
		os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "heavy"), 0o755)
		os.WriteFile(filepath.Join(c.DataDir, MapsDir, "heavy", "style.json"), []byte(styleJSON), 0o644)
		os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "city"), 0o755)
		os.WriteFile(filepath.Join(c.DataDir, MapsDir, "city", "style.json"), []byte(testStyle), 0o644)
	}, &log)
	for _, tc := range []struct{ path, want string }{
		{"/maps/heavy/0/0/0.png", "the map's style asks too much"},
		{"/maps/heavy/256/1/1/1.png", "the map's style asks too much"},
		{"/maps/heavy/static/0,0,3/600x400@2x.png", "a smaller picture, fewer overlays"},
	} {
		r := e.do("GET", tc.path, nil)
		checkError(t, r, 400)
		if m := decodeJSON[map[string]string](t, r.body)["message"]; !strings.Contains(m, "more drawing than one render may do") || !strings.Contains(m, tc.want) {
			t.Errorf("%s: message %q", tc.path, m)
		}
	}
	wms := e.do("GET", "/maps/wms?service=WMS&request=GetMap&version=1.3.0&layers=heavy&styles=&crs=EPSG:3857&bbox=-2000000,-2000000,2000000,2000000&width=400&height=400&format=image/png", nil)
	if wms.status != 400 || !strings.Contains(wms.header.Get("Content-Type"), "xml") || !strings.Contains(string(wms.body), "more drawing than one render may do") {
		t.Errorf("WMS GetMap of the heavy map: %d %s %s, want a ServiceException", wms.status, wms.header.Get("Content-Type"), wms.body)
	}
	// Another map still draws.
	if r := e.do("GET", "/maps/city/0/0/0.png", nil); r.status != 200 {
		t.Errorf("another map after the refusals: %d %s", r.status, r.body)
	}
	m := string(e.do("GET", "/metrics", nil).body)
	if !strings.Contains(m, "tessera_renders_work_bound_total 4\n") {
		t.Errorf("metrics lack tessera_renders_work_bound_total 4:\n%s", m)
	}
	var warned int
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "too much drawing") && strings.Contains(line, "heavy") {
			warned++
		}
		if strings.Contains(line, "level=ERROR") && strings.Contains(line, "heavy") {
			t.Errorf("logged as an error: %s", line)
		}
	}
	if warned != 4 {
		t.Errorf("%d warnings naming the map, want 4:\n%s", warned, log.String())
	}
}
