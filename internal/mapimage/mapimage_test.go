package mapimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/egress"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/panics"
	"github.com/tesseramaps/tessera/internal/sprite"
	"github.com/tesseramaps/tessera/internal/staticmap"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/style"
)

// quadrantStyle is a blue world with the north-west quadrant red and a
// black line across the whole world at the latitude of 40 degrees north.
const quadrantStyle = `{
  "version": 8,
  "sources": {
    "q": {"type": "geojson", "attribution": "<a href=\"https://example.com\">Quadrant &amp; Co</a>", "data": {"type": "FeatureCollection", "features": [
      {"type": "Feature", "properties": {"kind": "nw"}, "geometry": {"type": "Polygon", "coordinates": [[[-180, 0], [0, 0], [0, 85.05], [-180, 85.05], [-180, 0]]]}},
      {"type": "Feature", "properties": {"kind": "line"}, "geometry": {"type": "LineString", "coordinates": [[-179, 40], [179, 40]]}}
    ]}}
  },
  "layers": [
    {"id": "bg", "type": "background", "paint": {"background-color": "#0000ff"}},
    {"id": "nw", "type": "fill", "source": "q", "filter": ["==", ["get", "kind"], "nw"], "paint": {"fill-color": "#ff0000", "fill-antialias": false}},
    {"id": "line", "type": "line", "source": "q", "filter": ["==", ["get", "kind"], "line"], "paint": {"line-color": "#000000", "line-width": 6}}
  ]
}`

func testMap(styleJSON string, gen uint64) *catalog.Map {
	return &catalog.Map{Map: store.Map{ID: "q", Published: true, Format: "png"}, Style: []byte(styleJSON), State: catalog.StateOK, Gen: gen}
}

func newService(t *testing.T, opt Options) *Service {
	t.Helper()
	opt.Logger = slog.New(slog.DiscardHandler)
	s, err := New(nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return img
}

func rgb(img image.Image, x, y int) [3]uint8 {
	c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	return [3]uint8{c.R, c.G, c.B}
}

func TestTileView(t *testing.T) {
	for _, tt := range []struct {
		z, x, y, size  int
		lon, lat, zoom float64
	}{
		{0, 0, 0, 512, 0, 0, 0},
		{0, 0, 0, 256, 0, 0, -1},
		{1, 0, 0, 512, -90, 66.51326, 1},
		{1, 1, 1, 256, 90, -66.51326, 0},
	} {
		v := TileView(tt.z, tt.x, tt.y, tt.size, 2)
		if math.Abs(v.Center[0]-tt.lon) > 1e-4 || math.Abs(v.Center[1]-tt.lat) > 1e-4 || v.Zoom != tt.zoom || v.Width != tt.size || v.PixelRatio != 2 ||
			v.LabelGrid != float64(tt.size) || v.LabelMargin != float64(tt.size)/2 {
			t.Errorf("%d/%d/%d@%d: %+v", tt.z, tt.x, tt.y, tt.size, v)
		}
	}
}

func TestTiles(t *testing.T) {
	s := newService(t, Options{CacheBytes: 8 << 20})
	ctx := context.Background()
	m := testMap(quadrantStyle, 1)
	for _, tt := range []struct {
		z, x, y, size, scale int
		want                 [3]uint8 // colour near the tile's centre
	}{
		{1, 0, 0, 512, 1, [3]uint8{255, 0, 0}},
		{1, 1, 0, 512, 1, [3]uint8{0, 0, 255}},
		{1, 0, 1, 256, 1, [3]uint8{0, 0, 255}},
		{1, 0, 0, 256, 2, [3]uint8{255, 0, 0}},
	} {
		img, err := s.Tile(ctx, TileRequest{Map: m, Z: tt.z, X: tt.x, Y: tt.y, Size: tt.size, Scale: tt.scale, Format: imageenc.PNG})
		if err != nil {
			t.Fatal(err)
		}
		if img.MediaType != "image/png" || img.ETag == "" {
			t.Errorf("media type %q etag %q", img.MediaType, img.ETag)
		}
		pic := decode(t, img.Data)
		side := tt.size * tt.scale
		if pic.Bounds().Dx() != side || pic.Bounds().Dy() != side {
			t.Fatalf("%d/%d/%d size %d@%d: %v", tt.z, tt.x, tt.y, tt.size, tt.scale, pic.Bounds())
		}
		if got := rgb(pic, side/2, side*15/16); got != tt.want {
			t.Errorf("%d/%d/%d size %d@%d: centre %v, want %v", tt.z, tt.x, tt.y, tt.size, tt.scale, got, tt.want)
		}
	}

	// Cached: the same bytes and ETag, and a hit.
	req := TileRequest{Map: m, Z: 1, X: 0, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG}
	a, _ := s.Tile(ctx, req)
	hits := s.CacheStats().Hits
	b, _ := s.Tile(ctx, req)
	if a.ETag != b.ETag || !bytes.Equal(a.Data, b.Data) || s.CacheStats().Hits != hits+1 {
		t.Errorf("second request not served from the cache (hits %d -> %d)", hits, s.CacheStats().Hits)
	}
	// An edited style (a new generation) makes the tile new.
	req.Map = testMap(strings.Replace(quadrantStyle, "#ff0000", "#00ff00", 1), 2)
	c, err := s.Tile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if c.ETag == a.ETag || rgb(decode(t, c.Data), 256, 480) != [3]uint8{0, 255, 0} {
		t.Errorf("tile after a style change is stale")
	}

	// Bad requests.
	for _, bad := range []TileRequest{
		{Map: m, Z: 1, X: 2, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG},
		{Map: m, Z: -1, X: 0, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG},
		{Map: m, Z: 23, X: 0, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG},
		{Map: m, Z: 0, X: 0, Y: 0, Size: 300, Scale: 1, Format: imageenc.PNG},
		{Map: m, Z: 0, X: 0, Y: 0, Size: 512, Scale: 3, Format: imageenc.PNG},
		{Map: m, Z: 0, X: 0, Y: 0, Size: 512, Scale: 1, Format: imageenc.JPEG},
	} {
		if _, err := s.Tile(ctx, bad); !IsRequestError(err) {
			t.Errorf("%+v: err %v, want a request error", bad, err)
		}
	}
}

// TestTilesJoinWithoutSeams draws the two tiles of zoom 1 north of the
// equator and the same area as one picture: the tiles side by side are
// the picture (the line across them continues, the fill edge is whole).
func TestTilesJoinWithoutSeams(t *testing.T) {
	s := newService(t, Options{})
	ctx := context.Background()
	m := testMap(quadrantStyle, 1)
	left, err := s.Tile(ctx, TileRequest{Map: m, Z: 1, X: 0, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG})
	if err != nil {
		t.Fatal(err)
	}
	right, err := s.Tile(ctx, TileRequest{Map: m, Z: 1, X: 1, Y: 0, Size: 512, Scale: 1, Format: imageenc.PNG})
	if err != nil {
		t.Fatal(err)
	}
	se, _ := s.style(m)
	v := TileView(1, 0, 0, 512, 1)
	v.Center[0], v.Width = 0, 1024
	whole, err := s.render.Render(ctx, se.st, v, s.res)
	if err != nil {
		t.Fatal(err)
	}
	l, r := decode(t, left.Data), decode(t, right.Data)
	differ := 0
	for y := 0; y < 512; y++ {
		for x := 0; x < 1024; x++ {
			var got [3]uint8
			if x < 512 {
				got = rgb(l, x, y)
			} else {
				got = rgb(r, x-512, y)
			}
			if got != rgb(whole, x, y) {
				differ++
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d pixels of the two tiles differ from the picture of both", differ)
	}
	// The line crosses the seam: dark on both sides of it.
	found := 0
	for y := 0; y < 512; y++ {
		if rgb(l, 511, y) == [3]uint8{0, 0, 0} && rgb(r, 0, y) == [3]uint8{0, 0, 0} {
			found++
		}
	}
	if found < 4 {
		t.Errorf("the line is not continuous across the seam (%d rows dark on both sides)", found)
	}
}

func TestStatic(t *testing.T) {
	icon := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	for i := range icon.Pix {
		icon.Pix[i] = 255 // white, opaque
	}
	var iconPNG bytes.Buffer
	png.Encode(&iconPNG, icon)
	iconServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big.png" {
			w.Write(bytes.Repeat([]byte("x"), maxIconBytes+10))
			return
		}
		w.Write(iconPNG.Bytes())
	}))
	defer iconServer.Close()
	loopback := netip.MustParsePrefix("127.0.0.0/8")
	s := newService(t, Options{Remote: egress.Policy{Allow: []netip.Prefix{loopback}}.Client(5 * time.Second)})
	ctx := context.Background()
	m := testMap(quadrantStyle, 1)

	q := url.Values{}
	q.Add("path", "stroke:#00ff00|width:8|-60,-20|60,-20")
	q.Add("markers", "30,-35")
	q.Add("markers", "icon:"+iconServer.URL+"/dot.png|-30,-35,Label")
	req, err := staticmap.Parse("0,0,1", "400x300.png", q)
	if err != nil {
		t.Fatal(err)
	}
	img, err := s.Static(ctx, m, req)
	if err != nil {
		t.Fatal(err)
	}
	pic := decode(t, img.Data)
	if out := os.Getenv("TESSERA_MAPIMAGE_OUT"); out != "" {
		os.WriteFile(out, img.Data, 0o644)
	}
	if pic.Bounds().Dx() != 400 || pic.Bounds().Dy() != 300 {
		t.Fatalf("size %v", pic.Bounds())
	}
	v := req.View(fitMaxZoom)
	px := func(lon, lat float64) (int, int) {
		x, y := v.Project([2]float64{lon, lat})
		return int(x), int(y)
	}
	if x, y := px(0, -20); rgb(pic, x, y) != [3]uint8{0, 255, 0} {
		t.Errorf("path: %v at its middle", rgb(pic, x, y))
	}
	headY := int(math.Round(pinHeight - pinWidth/2 - 0.5))
	// The default pin: its colour just above the tip, its white dot in
	// its head.
	if x, y := px(30, -35); rgb(pic, x, y-6) == [3]uint8{0, 0, 255} || rgb(pic, x, y-headY) != [3]uint8{255, 255, 255} {
		t.Errorf("default marker: %v above its tip, %v in its head", rgb(pic, x, y-6), rgb(pic, x, y-headY))
	}
	// The icon by URL: white, centred on its point.
	if x, y := px(-30, -35); rgb(pic, x, y) != [3]uint8{255, 255, 255} {
		t.Errorf("icon marker: %v at its point", rgb(pic, x, y))
	}
	// The attribution, bottom right: a light box with dark text.
	dark, light := 0, 0
	for y := 285; y < 300; y++ {
		for x := 250; x < 400; x++ {
			c := rgb(pic, x, y)
			switch {
			case c[0] < 120 && c[1] < 120 && c[2] < 160:
				dark++
			case c[0] > 150 && c[1] > 150:
				light++
			}
		}
	}
	if dark < 20 || light < 200 {
		t.Errorf("attribution: %d dark and %d light pixels in the corner", dark, light)
	}
	if got := s.attribution(mustStyle(t, s, m)); got != "Quadrant & Co" {
		t.Errorf("attribution text %q", got)
	}

	// @2x doubles the pixels.
	req2, _ := staticmap.Parse("0,0,1", "400x300@2x.png", q)
	if img, err := s.Static(ctx, m, req2); err != nil || decode(t, img.Data).Bounds().Dx() != 800 {
		t.Errorf("@2x: %v", err)
	}

	// Icons that cannot be used are the request's fault.
	for _, icon := range []string{iconServer.URL + "/big.png", "nosuchicon", "http://169.254.169.254/latest/meta-data"} {
		q := url.Values{"markers": {"icon:" + icon + "|0,0"}}
		req, err := staticmap.Parse("0,0,1", "100x100.png", q)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Static(ctx, m, req); !IsRequestError(err) {
			t.Errorf("icon %s: err %v, want a request error", icon, err)
		} else if strings.Contains(err.Error(), strings.Repeat("x", 16)) {
			// big.png's body is a run of "x": the message must not carry it.
			t.Errorf("icon %s: the error echoes the remote body", icon)
		}
	}
}

func mustStyle(t *testing.T, s *Service, m *catalog.Map) *style.Style {
	t.Helper()
	se, err := s.style(m)
	if err != nil {
		t.Fatal(err)
	}
	return se.st
}

func TestGetMap(t *testing.T) {
	s := newService(t, Options{})
	ctx := context.Background()
	m := testMap(quadrantStyle, 1)
	for _, tt := range []struct {
		query         string
		w, h          int
		corner        [3]uint8 // top-left pixel
		transparentBG bool
	}{
		{"VERSION=1.3.0&LAYERS=q&STYLES=&CRS=EPSG:3857&BBOX=-20037508,-20037508,20037508,20037508&WIDTH=256&HEIGHT=256&FORMAT=image/png", 256, 256, [3]uint8{255, 0, 0}, false},
		// 1.3.0 EPSG:4326 is latitude first.
		{"VERSION=1.3.0&LAYERS=q&STYLES=&CRS=EPSG:4326&BBOX=-80,-180,80,180&WIDTH=360&HEIGHT=160&FORMAT=image/jpeg", 360, 160, [3]uint8{255, 0, 0}, false},
		{"VERSION=1.1.1&LAYERS=q&STYLES=&SRS=EPSG:4326&BBOX=0,-80,180,80&WIDTH=100&HEIGHT=90&FORMAT=image/png&TRANSPARENT=TRUE", 100, 90, [3]uint8{0, 0, 255}, true},
	} {
		q, _ := url.ParseQuery(tt.query)
		req, se := ogc.ParseGetMap(q, 4096, func(name string) bool { return name == "q" })
		if se != nil {
			t.Fatalf("%s: %v", tt.query, se)
		}
		img, err := s.GetMap(ctx, []*catalog.Map{m}, req)
		if err != nil {
			t.Fatal(err)
		}
		pic := decode(t, img.Data)
		if pic.Bounds().Dx() != tt.w || pic.Bounds().Dy() != tt.h {
			t.Errorf("%s: size %v", tt.query, pic.Bounds())
			continue
		}
		got := rgb(pic, 2, 2)
		near := func(a, b uint8) bool { return max(a, b)-min(a, b) < 40 }
		if !near(got[0], tt.corner[0]) || !near(got[1], tt.corner[1]) || !near(got[2], tt.corner[2]) {
			t.Errorf("%s: top-left %v, want %v", tt.query, got, tt.corner)
		}
	}
}

// TestIconChangeMakesNewTiles edits a map's icon: the next tile request
// renders again (a cache miss), although the style is the same.
func TestIconChangeMakesNewTiles(t *testing.T) {
	old := resourceRecheck
	resourceRecheck = 0
	defer func() { resourceRecheck = old }()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, catalog.IconsDir), 0o755)
	icon := filepath.Join(dir, catalog.IconsDir, "dot.svg")
	os.WriteFile(icon, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="3" fill="red"/></svg>`), 0o644)
	s := newService(t, Options{CacheBytes: 8 << 20, Sprites: sprite.NewCache()})
	m := testMap(quadrantStyle, 1)
	m.Dir = dir
	ctx := context.Background()
	req := TileRequest{Map: m, Z: 0, Size: 512, Scale: 1, Format: imageenc.PNG}
	if _, err := s.Tile(ctx, req); err != nil {
		t.Fatal(err)
	}
	s.Tile(ctx, req)
	misses := s.CacheStats().Misses
	s.Tile(ctx, req)
	if s.CacheStats().Misses != misses {
		t.Fatal("an unchanged map's tile was not served from the cache")
	}
	os.WriteFile(icon, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><circle cx="4" cy="4" r="4" fill="blue"/></svg>`), 0o644)
	s.Tile(ctx, req)
	if s.CacheStats().Misses != misses+1 {
		t.Error("the tile was served from the cache after the map's icon changed")
	}
}

func TestPackQuarters(t *testing.T) {
	q := [4][]byte{[]byte("a"), nil, []byte("ccc"), []byte("dd")}
	b := packQuarters(q)
	got, err := unpackQuarters(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range q {
		if string(got[i]) != string(q[i]) {
			t.Errorf("quarter %d: %q, want %q", i, got[i], q[i])
		}
	}
	for n := range len(b) {
		if _, err := unpackQuarters(b[:n]); err == nil {
			t.Errorf("%d of %d bytes unpacked without error", n, len(b))
		}
	}
}

// TestStaticOverlayWork: paths that cover the picture far more often than
// overlayWork allows are the request's fault, cut while drawing; the same
// paths a few times over are drawn.
func TestStaticOverlayWork(t *testing.T) {
	s := newService(t, Options{})
	m := testMap(quadrantStyle, 1)
	for _, tt := range []struct {
		paths int
		cut   bool
	}{{3, false}, {50, true}} {
		q := url.Values{}
		for range tt.paths {
			q.Add("path", "fill:rgba(255,0,0,0.1)|width:100|-60,-60|60,-60|60,60|-60,60|-60,-60")
		}
		req, err := staticmap.Parse("0,0,1", "100x100.png", q)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Static(context.Background(), m, req)
		if tt.cut && (!IsRequestError(err) || !strings.Contains(err.Error(), "times over")) {
			t.Errorf("%d paths over the whole picture: %v, want a request error", tt.paths, err)
		}
		if !tt.cut && err != nil {
			t.Errorf("%d paths: %v", tt.paths, err)
		}
	}
}

func TestFlatten(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 1))
	copy(img.Pix, []byte{0, 0, 0, 0, 128, 0, 0, 128, 10, 20, 30, 255})
	flatten(img, color.RGBA{0, 0, 255, 255})
	want := []byte{0, 0, 255, 255, 128, 0, 127, 255, 10, 20, 30, 255}
	if !bytes.Equal(img.Pix, want) {
		t.Errorf("flattened %v, want %v", img.Pix, want)
	}
}

// panickingTransport panics on every request, as a bug deep in a fetch
// would.
type panickingTransport struct{}

func (panickingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	panic("boom in a fetch")
}

// TestRenderPanic: a panic while rendering, in whichever of the render's
// goroutines reads the source, is an error for the request (ErrPanic,
// with the panic's stack), counted, and the service goes on serving.
func TestRenderPanic(t *testing.T) {
	s := newService(t, Options{Remote: &http.Client{Transport: panickingTransport{}}})
	style := `{"version": 8, "sources": {"g": {"type": "geojson", "data": "http://127.0.0.1:9/data.geojson"}},
	  "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#fff"}},
	    {"id": "fill", "type": "fill", "source": "g"}, {"id": "line", "type": "line", "source": "g"}]}`
	_, err := s.Tile(context.Background(), TileRequest{Map: testMap(style, 1), Z: 0, Size: 512, Scale: 1, Format: imageenc.PNG})
	var p *panics.Recovered
	if !errors.Is(err, ErrPanic) || !errors.As(err, &p) || len(p.Stack) == 0 {
		t.Fatalf("a panicking fetch gave %v, want ErrPanic with its stack", err)
	}
	if st := s.QueueStats(); st.Panicked != 1 || st.Admitted != 0 || st.Running != 0 {
		t.Errorf("stats after the panic: %+v", st)
	}
	if _, err := s.Tile(context.Background(), TileRequest{Map: testMap(quadrantStyle, 2), Z: 0, Size: 512, Scale: 1, Format: imageenc.PNG}); err != nil {
		t.Errorf("the next render: %v", err)
	}
}

// TestOverlaysStopAtDeadline: the overlays of a picture whose render's
// context has ended are not drawn on: the drawing stops with the
// context's cause.
func TestOverlaysStopAtDeadline(t *testing.T) {
	q := url.Values{}
	for range 50 {
		q.Add("path", "fill:rgba(255,0,0,0.1)|width:100|-60,-60|60,-60|60,60|-60,60|-60,-60")
	}
	req, err := staticmap.Parse("0,0,1", "2048x2048@2x.png", q)
	if err != nil {
		t.Fatal(err)
	}
	cut := errors.New("the render's deadline")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cut)
	v := req.View(fitMaxZoom)
	img := image.NewRGBA(image.Rect(0, 0, 4096, 4096))
	if err := drawOverlays(ctx, img, v, req, make([]markerIcon, len(req.Markers)), ""); !errors.Is(err, cut) {
		t.Errorf("overlays after the deadline: %v, want the context's cause", err)
	}
	for _, b := range img.Pix[:4*4096*2048] {
		if b != 0 {
			t.Fatal("the overlays drew after the deadline")
		}
	}
}

// TestGetMapLabelsUpright asks for a map with a label at 60°N (a real
// font) in EPSG:3857 with square pixels, in EPSG:4326 in both axis
// orders and in stretched Web Mercator pixels, all at one scale across:
// the label's text keeps its width and height on every grid, and its
// place about its point. (Before issue 19 the Mercator picture was
// warped, labels and all: at 60°N their height halved.)
func TestGetMapLabelsUpright(t *testing.T) {
	fonts, err := glyphs.Open(t.Context(), fixtures.Path(t, "fixtures/tileserver-gl/public/resources/fonts"), glyphs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer fonts.Close()
	s := newService(t, Options{Fonts: fonts})
	m := testMap(`{"version": 8, "glyphs": "/fonts/{fontstack}/{range}.pbf",
		"sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [10, 60]}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
			{"id": "label", "type": "symbol", "source": "p", "layout": {"text-field": "Hamburg", "text-font": ["Open Sans Regular"], "text-size": 20}}]}`, 1)
	// 512 pixels across 20 degrees of longitude everywhere.
	mx, my := geo.LonLatToMercator(10, 60)
	half := 256 * 2 * geo.OriginShift / (512 * 18)
	merc := fmt.Sprintf("%f,%f,%f,%f", mx-half, my-half, mx+half, my+half)
	// label returns the box of the label's dark pixels, relative to its
	// point on the request's grid.
	label := func(query string) image.Rectangle {
		t.Helper()
		q, _ := url.ParseQuery(query + "&LAYERS=q&STYLES=&FORMAT=image/png")
		req, se := ogc.ParseGetMap(q, ogc.MaxSize, func(name string) bool { return name == "q" })
		if se != nil {
			t.Fatalf("%s: %v", query, se)
		}
		img, err := s.GetMap(t.Context(), []*catalog.Map{m}, req)
		if err != nil {
			t.Fatal(err)
		}
		pic := decode(t, img.Data)
		var box image.Rectangle
		for y := pic.Bounds().Min.Y; y < pic.Bounds().Max.Y; y++ {
			for x := pic.Bounds().Min.X; x < pic.Bounds().Max.X; x++ {
				if c := rgb(pic, x, y); c[0] < 128 {
					box = box.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		if box.Empty() {
			t.Fatalf("%s: no label", query)
		}
		ax, ay := req.ToPixel(geo.LonLatToWorld(10, 60))
		return box.Sub(image.Pt(int(math.Round(ax)), int(math.Round(ay))))
	}
	ref := label("VERSION=1.3.0&CRS=EPSG:3857&WIDTH=512&HEIGHT=512&BBOX=" + merc)
	t.Logf("EPSG:3857 label %v (%dx%d) about its point", ref, ref.Dx(), ref.Dy())
	for _, query := range []string{
		"VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256",
		"VERSION=1.1.1&SRS=EPSG:4326&BBOX=0,55,20,65&WIDTH=512&HEIGHT=256",
		"VERSION=1.1.1&SRS=EPSG:3857&WIDTH=512&HEIGHT=150&BBOX=" + merc,
	} {
		got := label(query)
		t.Logf("%s: label %v (%dx%d)", query, got, got.Dx(), got.Dy())
		near := func(a, b int) bool { return max(a-b, b-a) <= 1 }
		if !near(got.Min.X, ref.Min.X) || !near(got.Max.X, ref.Max.X) || !near(got.Min.Y, ref.Min.Y) || !near(got.Max.Y, ref.Max.Y) {
			t.Errorf("%s: label %v about its point, in EPSG:3857 %v", query, got, ref)
		}
	}
}
