package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"

	_ "modernc.org/sqlite"

	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/web"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	return fixtures.RepoRoot()
}

func needTool(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s missing and TESSERA_REQUIRE_TOOLS=1", what)
	}
	t.Skipf("%s missing; skipping the browser test", what)
}

// mbtiles is a read-only fixture MBTiles file.
type mbtiles struct {
	db   *sql.DB
	meta map[string]string
}

func openMBTiles(ctx context.Context, t *testing.T, path string) *mbtiles {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	rows, err := db.QueryContext(ctx, "SELECT name, value FROM metadata")
	if err != nil {
		t.Fatalf("metadata of %s: %v", path, err)
	}
	defer rows.Close()
	m := &mbtiles{db: db, meta: map[string]string{}}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		m.meta[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func floats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d numbers in %q", n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// tileSet describes the fixture with the metadata it holds.
func (m *mbtiles) tileSet(t *testing.T, id string) ogc.TileSet {
	t.Helper()
	ts := ogc.TileSet{ID: id, Title: m.meta["name"], Description: m.meta["description"], Format: m.meta["format"]}
	if ts.Format == "" {
		ts.Format = m.sniffFormat(t)
	}
	ts.MinZoom, _ = strconv.Atoi(m.meta["minzoom"])
	ts.MaxZoom, _ = strconv.Atoi(m.meta["maxzoom"])
	if b, err := floats(m.meta["bounds"], 4); err == nil {
		copy(ts.Bounds[:], b)
	}
	if c, err := floats(m.meta["center"], 3); err == nil {
		copy(ts.Center[:], c)
	}
	if j := m.meta["json"]; j != "" {
		var v struct {
			VectorLayers json.RawMessage `json:"vector_layers"`
		}
		if err := json.Unmarshal([]byte(j), &v); err != nil {
			t.Fatalf("metadata json: %v", err)
		}
		ts.VectorLayers = v.VectorLayers
	}
	return ts
}

// sniffFormat guesses the tile format of a file whose metadata lacks
// "format" (older MBTiles files) from the magic bytes of one tile.
func (m *mbtiles) sniffFormat(t *testing.T) string {
	t.Helper()
	var data []byte
	if err := m.db.QueryRowContext(t.Context(), "SELECT tile_data FROM tiles LIMIT 1").Scan(&data); err != nil {
		t.Fatalf("sniff tile format: %v", err)
	}
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "jpg"
	case len(data) > 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp"
	}
	return "pbf"
}

const maxTileBytes = 8 << 20

// tile returns the XYZ tile z/x/y, ungzipped, or nil when absent.
func (m *mbtiles) tile(ctx context.Context, z, x, y int) ([]byte, error) {
	var data []byte
	err := m.db.QueryRowContext(ctx, "SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
		z, x, (1<<z)-1-y).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tile %d/%d/%d: %w", z, x, y, err)
	}
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("tile %d/%d/%d: %w", z, x, y, err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxTileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("tile %d/%d/%d: gunzip: %w", z, x, y, err)
		}
		if len(out) > maxTileBytes {
			return nil, fmt.Errorf("tile %d/%d/%d: larger than %d bytes", z, x, y, maxTileBytes)
		}
		data = out
	}
	return data, nil
}

// server serves what the viewer pages need: pages, static files, TileJSON,
// a style and the tiles of the fixtures.
func server(t *testing.T, sets map[string]*mbtiles) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.Handle("GET /static/", web.Static())
	tileSet := func(r *http.Request) (*mbtiles, ogc.TileSet, bool) {
		m, ok := sets[r.PathValue("id")]
		if !ok {
			return nil, ogc.TileSet{}, false
		}
		return m, m.tileSet(t, r.PathValue("id")), true
	}
	mux.HandleFunc("GET /tiles/{id}/{$}", func(w http.ResponseWriter, r *http.Request) {
		_, ts, ok := tileSet(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := web.TilesetViewer(w, web.TilesetView{ID: ts.ID, Title: ts.Title, Vector: ts.Format == "pbf"}); err != nil {
			t.Errorf("viewer: %v", err)
		}
	})
	mux.HandleFunc("GET /tiles/{id}/tiles.json", func(w http.ResponseWriter, r *http.Request) {
		_, ts, ok := tileSet(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		e, err := ogc.NewEndpoint(srv.URL, "")
		if err != nil {
			t.Errorf("endpoint: %v", err)
			return
		}
		doc, err := ogc.TileJSON(ts, e)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	})
	mux.HandleFunc("GET /tiles/{id}/{z}/{x}/{yext}", func(w http.ResponseWriter, r *http.Request) {
		m, ts, ok := tileSet(r)
		z, errZ := strconv.Atoi(r.PathValue("z"))
		x, errX := strconv.Atoi(r.PathValue("x"))
		ys, ext, _ := strings.Cut(r.PathValue("yext"), ".")
		y, errY := strconv.Atoi(ys)
		if !ok || errZ != nil || errX != nil || errY != nil || ext != strings.Replace(ts.Format, "jpeg", "jpg", 1) {
			http.NotFound(w, r)
			return
		}
		data, err := m.tile(r.Context(), z, x, y)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if data == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		ct := map[string]string{"pbf": "application/vnd.mapbox-vector-tile", "png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[ext]
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(data)
	})
	mux.HandleFunc("GET /maps/cities/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := web.MapViewer(w, web.MapView{ID: "cities", Title: "Cities map"}); err != nil {
			t.Errorf("map viewer: %v", err)
		}
	})
	// The map's raster tiles (those of the raster mode): the PNG fixture.
	mux.HandleFunc("GET /maps/cities/tiles.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"tilejson": "3.0.0", "tiles": []string{srv.URL + "/tiles/geo/{z}/{x}/{y}.png"},
			"minzoom": 0, "maxzoom": 1, "center": []float64{0, 20, 0}, "tileSize": 256,
		})
	})
	mux.HandleFunc("GET /maps/cities/style.json", func(w http.ResponseWriter, r *http.Request) {
		style := map[string]any{
			"version": 8,
			"center":  []float64{0, 20},
			"zoom":    1,
			"sources": map[string]any{"cities": map[string]any{"type": "vector", "url": srv.URL + "/tiles/world/tiles.json"}},
			"layers": []any{
				map[string]any{"id": "bg", "type": "background", "paint": map[string]any{"background-color": "#dfe8ee"}},
				map[string]any{"id": "cities", "type": "circle", "source": "cities", "source-layer": "cities",
					"paint": map[string]any{"circle-color": "#c1121f", "circle-radius": 5}},
			},
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(style)
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type pageResult struct {
	Name              string         `json:"name"`
	Errors            []string       `json:"errors"`
	TileRequests      int            `json:"tileRequests"`
	TileResponses     int            `json:"tileResponses"`
	Loaded            bool           `json:"loaded"`
	RenderedFeatures  int            `json:"renderedFeatures"`
	SourceLayers      []string       `json:"sourceLayers"`
	StyleLayers       int            `json:"styleLayers"`
	Checkboxes        int            `json:"checkboxes"`
	PanelVisible      bool           `json:"panelVisible"`
	Status            string         `json:"status"`
	RenderedAfterHide *int           `json:"renderedAfterHide"`
	RenderedAfterShow *int           `json:"renderedAfterShow"`
	PopupTitle        string         `json:"popupTitle"`
	PopupText         string         `json:"popupText"`
	ClickedProps      map[string]any `json:"clickedProps"`
	// the map viewer in raster mode
	Mode           string  `json:"mode"`
	Images         int     `json:"images"`
	MapPixels      int     `json:"mapPixels"`
	SwitchText     string  `json:"switchText"`
	SwitchDisabled bool    `json:"switchDisabled"`
	SwitchHidden   bool    `json:"switchHidden"`
	ZoomAfterClick float64 `json:"zoomAfterClick"`
}

func TestViewersInChromium(t *testing.T) {
	root := repoRoot(t)
	fixtureDir := filepath.Dir(fixtures.Path(t, "fixtures/mbtileserver/testdata/world_cities.mbtiles"))
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	_, errC := os.Stat(chromium)
	needTool(t, errC == nil, "chromium ("+chromium+"; apt-get install -y chromium)")
	node, errN := exec.LookPath("node")
	needTool(t, errN == nil, "node")
	pw := filepath.Join(root, ".cache", "npm-test", "node_modules", "playwright-core")
	_, errP := os.Stat(filepath.Join(pw, "package.json"))
	needTool(t, errP == nil, "playwright-core (scripts/test-tools-npm.sh)")
	needTool(t, web.HasMapLibre(), "MapLibre GL JS in internal/web/static/vendor (scripts/web-assets.sh)")

	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	srv := server(t, map[string]*mbtiles{
		"world": openMBTiles(ctx, t, filepath.Join(fixtureDir, "world_cities.mbtiles")),
		"geo":   openMBTiles(ctx, t, filepath.Join(fixtureDir, "geography-class-png.mbtiles")),
	})

	shots := os.Getenv("TESSERA_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	type pageCfg struct {
		Name        string `json:"name"`
		URL         string `json:"url"`
		Kind        string `json:"kind"`
		TilePattern string `json:"tilePattern"`
		Screenshot  string `json:"screenshot"`
		Browser     string `json:"browser,omitempty"`
	}
	pages := []pageCfg{
		{"vector", srv.URL + "/tiles/world/", "vector", `/tiles/world/\d+/\d+/\d+\.pbf$`, filepath.Join(shots, "viewer-vector.png"), ""},
		{"raster", srv.URL + "/tiles/geo/", "raster", `/tiles/geo/\d+/\d+/\d+\.png$`, filepath.Join(shots, "viewer-raster.png"), ""},
		{"map", srv.URL + "/maps/cities/?mode=vector", "map", `/tiles/world/\d+/\d+/\d+\.pbf$`, filepath.Join(shots, "viewer-map.png"), ""},
		// Without ?mode, under software WebGL and without WebGL, the map
		// viewer starts in raster mode: the map's raster tiles in images.
		{"map-software-webgl", srv.URL + "/maps/cities/", "map-raster", `/tiles/geo/\d+/\d+/\d+\.png$`, filepath.Join(shots, "viewer-map-raster.png"), ""},
		{"map-no-webgl", srv.URL + "/maps/cities/", "map-raster", `/tiles/geo/\d+/\d+/\d+\.png$`, filepath.Join(shots, "viewer-map-nowebgl.png"), "nowebgl"},
	}
	cfg, err := json.Marshal(map[string]any{"pages": pages})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "internal", "web", "browsertest", "run.mjs"), string(cfg))
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE_DIR="+pw, "CHROMIUM="+chromium)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run.mjs: %v\n%s", err, stderr.String())
	}
	var results []pageResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("run.mjs output %q: %v\n%s", out, err, stderr.String())
	}
	if len(results) != len(pages) {
		t.Fatalf("%d results for %d pages", len(results), len(pages))
	}
	for i, r := range results {
		t.Logf("%s: %+v", r.Name, r)
		if len(r.Errors) > 0 {
			t.Errorf("%s: browser errors: %q", r.Name, r.Errors)
		}
		if !r.Loaded || r.TileRequests == 0 || r.TileResponses == 0 || r.Status != "" {
			t.Errorf("%s: loaded %v, %d tile requests, %d tile responses, status %q", r.Name, r.Loaded, r.TileRequests, r.TileResponses, r.Status)
		}
		if n := fixtures.Colours(t, pages[i].Screenshot); n < 2 {
			t.Errorf("%s: screenshot has %d colours", r.Name, n)
		}
	}
	vec, raster, mp := results[0], results[1], results[2]
	if vec.RenderedFeatures == 0 || len(vec.SourceLayers) != 1 || vec.SourceLayers[0] != "cities" {
		t.Errorf("vector: %d rendered features from %v", vec.RenderedFeatures, vec.SourceLayers)
	}
	// background + fill/line/circle per vector layer
	if vec.StyleLayers != 4 || vec.Checkboxes != 1 || !vec.PanelVisible {
		t.Errorf("vector: %d style layers, %d checkboxes, panel visible %v", vec.StyleLayers, vec.Checkboxes, vec.PanelVisible)
	}
	if vec.RenderedAfterHide == nil || *vec.RenderedAfterHide != 0 || vec.RenderedAfterShow == nil || *vec.RenderedAfterShow != vec.RenderedFeatures {
		t.Errorf("vector: layer toggle: %v features hidden, %v shown again (want 0 and %d)", vec.RenderedAfterHide, vec.RenderedAfterShow, vec.RenderedFeatures)
	}
	name, _ := vec.ClickedProps["name"].(string)
	if vec.PopupTitle != "cities" || name == "" || !strings.Contains(vec.PopupText, name) {
		t.Errorf("vector: popup %q / %q for clicked feature %v", vec.PopupTitle, vec.PopupText, vec.ClickedProps)
	}
	// the raster map of the world has many colours
	if n := fixtures.Colours(t, pages[1].Screenshot); n < 50 {
		t.Errorf("raster: screenshot has only %d colours", n)
	}
	if raster.StyleLayers != 1 {
		t.Errorf("raster: %d style layers", raster.StyleLayers)
	}
	if mp.RenderedFeatures == 0 || mp.StyleLayers != 2 {
		t.Errorf("map: %d rendered features, %d style layers", mp.RenderedFeatures, mp.StyleLayers)
	}
	for k, r := range results[3:] {
		// a 900x600 view at zoom 0 (a world 512 px wide, repeated) of
		// 256-px tiles at zoom 1: 4x2 tiles, each of 64x64 opaque pixels
		// drawn from its image
		if r.Mode != "raster" || r.Images != 8 || r.MapPixels < r.Images*64*64 {
			t.Errorf("%s: mode %q, %d images, %d map pixels", r.Name, r.Mode, r.Images, r.MapPixels)
		}
		if n := fixtures.Colours(t, pages[3+k].Screenshot); n < 50 {
			t.Errorf("%s: screenshot has only %d colours", r.Name, n)
		}
		if r.ZoomAfterClick != 1 {
			t.Errorf("%s: the zoom-in button changed the zoom by %v", r.Name, r.ZoomAfterClick)
		}
		// the switch to the vector map: offered under software WebGL,
		// disabled without WebGL
		if r.SwitchHidden || r.SwitchText != "Vector map (WebGL)" || r.SwitchDisabled != (r.Name == "map-no-webgl") {
			t.Errorf("%s: switch %q hidden %v disabled %v", r.Name, r.SwitchText, r.SwitchHidden, r.SwitchDisabled)
		}
	}
}
