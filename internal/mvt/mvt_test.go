package mvt

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"

	_ "modernc.org/sqlite"
)

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
}

func TestZigzag(t *testing.T) {
	for _, v := range []int32{0, -1, 1, -2, 2, math.MaxInt32, math.MinInt32} {
		if got := unzigzag32(zigzag32(v)); got != v {
			t.Errorf("zigzag32 round trip %d -> %d", v, got)
		}
	}
	// Values from the protocol buffers documentation.
	want := map[int32]uint32{0: 0, -1: 1, 1: 2, -2: 3, 2147483647: 4294967294, -2147483648: 4294967295}
	for in, out := range want {
		if got := zigzag32(in); got != out {
			t.Errorf("zigzag32(%d) = %d, want %d", in, got, out)
		}
	}
	for _, v := range []int64{0, -1, 1, math.MaxInt64, math.MinInt64} {
		if got := unzigzag64(zigzag64(v)); got != v {
			t.Errorf("zigzag64 round trip %d -> %d", v, got)
		}
	}
}

// TestSpecExamples checks the command streams given in the specification's
// geometry examples (section 4.3.5).
func TestSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		geom Geometry
		want []uint32
	}{
		{"point", Geometry{Type: Point, Points: []XY{{25, 17}}}, []uint32{9, 50, 34}},
		{"multipoint", Geometry{Type: Point, Points: []XY{{5, 7}, {3, 2}}}, []uint32{17, 10, 14, 3, 9}},
		{"linestring", Geometry{Type: LineString, Lines: [][]XY{{{2, 2}, {2, 10}, {10, 10}}}}, []uint32{9, 4, 4, 18, 0, 16, 16, 0}},
		{"multilinestring", Geometry{Type: LineString, Lines: [][]XY{{{2, 2}, {2, 10}, {10, 10}}, {{1, 1}, {3, 5}}}},
			[]uint32{9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8}},
		{"polygon", Geometry{Type: Polygon, Polygons: [][][]XY{{{{3, 6}, {8, 12}, {20, 34}, {3, 6}}}}},
			[]uint32{9, 6, 12, 18, 10, 12, 24, 44, 15}},
		{"multipolygon", Geometry{Type: Polygon, Polygons: [][][]XY{
			{{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}},
			{{{11, 11}, {20, 11}, {20, 20}, {11, 20}, {11, 11}}, {{13, 13}, {13, 17}, {17, 17}, {17, 13}, {13, 13}}},
		}}, []uint32{9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15, 9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := encodeGeometry(tc.geom)
			if err != nil || !ok {
				t.Fatalf("encode: ok=%v err=%v", ok, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("commands\n got %v\nwant %v", got, tc.want)
			}
			back, err := decodeGeometry(tc.geom.Type, got)
			if err != nil {
				t.Fatal(err)
			}
			if tc.geom.Type == Polygon {
				// Decoded rings are closed; the inputs above are closed too.
				if !reflect.DeepEqual(back.Polygons, tc.geom.Polygons) {
					t.Fatalf("decoded %v, want %v", back.Polygons, tc.geom.Polygons)
				}
			} else if !reflect.DeepEqual(back, tc.geom) {
				t.Fatalf("decoded %+v, want %+v", back, tc.geom)
			}
		})
	}
}

func TestWinding(t *testing.T) {
	// Counter-clockwise on screen (negative area in y-down coordinates)
	// exterior and a clockwise hole: the encoder must flip both.
	ext := []XY{{0, 0}, {0, 100}, {100, 100}, {100, 0}}
	hole := []XY{{10, 10}, {50, 10}, {50, 50}, {10, 50}}
	if RingArea(ext) >= 0 || RingArea(hole) <= 0 {
		t.Fatalf("test rings have unexpected orientation: %d %d", RingArea(ext), RingArea(hole))
	}
	f, err := oneFeatureLayer(t, Feature{Geometry: Geometry{Type: Polygon, Polygons: [][][]XY{{ext, hole}}}}).Feature(0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Geometry()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Polygons) != 1 || len(g.Polygons[0]) != 2 {
		t.Fatalf("want 1 polygon with a hole, got %v", g.Polygons)
	}
	if a := RingArea(g.Polygons[0][0]); a != 2*100*100 {
		t.Errorf("exterior area*2 = %d, want %d", a, 2*100*100)
	}
	if a := RingArea(g.Polygons[0][1]); a != -2*40*40 {
		t.Errorf("hole area*2 = %d, want %d", a, -2*40*40)
	}
}

func TestDegenerateDropped(t *testing.T) {
	b, _ := NewLayerBuilder("l", 0)
	tests := []Geometry{
		{Type: Point},
		{Type: LineString, Lines: [][]XY{{{1, 1}, {1, 1}}}},
		{Type: Polygon, Polygons: [][][]XY{{{{0, 0}, {5, 5}, {10, 10}, {0, 0}}}}}, // zero area
		{Type: Polygon, Polygons: [][][]XY{{{{0, 0}, {5, 5}}}}},
	}
	for i, g := range tests {
		ok, err := b.Add(Feature{Geometry: g})
		if err != nil || ok {
			t.Errorf("case %d: ok=%v err=%v, want dropped", i, ok, err)
		}
	}
	if b.Len() != 0 {
		t.Fatalf("Len = %d", b.Len())
	}
	data, err := EncodeTile(b)
	if err != nil || len(data) != 0 {
		t.Fatalf("empty layer should be omitted: %v %v", data, err)
	}
	if _, err := b.Add(Feature{Geometry: Geometry{Type: GeomType(9)}}); err == nil {
		t.Error("unknown geometry type accepted")
	}
}

func TestRoundTripProperties(t *testing.T) {
	b, err := NewLayerBuilder("places", 512)
	if err != nil {
		t.Fatal(err)
	}
	props := []map[string]any{
		{"name": "A", "pop": int64(1000), "neg": -5, "ratio": 0.5, "f32": float32(1.5), "cap": true, "big": uint64(1 << 63), "list": []any{1, "x"}, "nil": nil},
		{"name": "B", "pop": int64(1000), "cap": false},
	}
	for i, p := range props {
		ok, err := b.Add(Feature{ID: uint64(i + 7), HasID: true, Geometry: Geometry{Type: Point, Points: []XY{{int32(i), 3}}}, Properties: p})
		if err != nil || !ok {
			t.Fatalf("add: %v %v", ok, err)
		}
	}
	b2, _ := NewLayerBuilder("other", 0)
	b2.Add(Feature{Geometry: Geometry{Type: LineString, Lines: [][]XY{{{0, 0}, {4096, 4096}}}}})
	data, err := EncodeTile(b, b2)
	if err != nil {
		t.Fatal(err)
	}
	tile, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tile.Layers) != 2 || tile.Layers[0].Name != "places" || tile.Layers[1].Name != "other" {
		t.Fatalf("layers: %+v", tile.Layers)
	}
	l := tile.Layer("places")
	if l.Extent != 512 || l.Version != 2 || l.Len() != 2 {
		t.Fatalf("layer header: extent %d version %d len %d", l.Extent, l.Version, l.Len())
	}
	keys, _ := l.Keys()
	values, _ := l.Values()
	// "pop"=1000 and "name" keys shared: 8 distinct keys (nil skipped), and
	// the values 1000 shared between features.
	if len(keys) != 8 {
		t.Errorf("keys = %v, want 8 distinct", keys)
	}
	if len(values) != 10 {
		t.Errorf("values = %v, want 10 distinct", values)
	}
	want := []map[string]any{
		{"name": "A", "pop": uint64(1000), "neg": int64(-5), "ratio": 0.5, "f32": float32(1.5), "cap": true, "big": uint64(1 << 63), "list": `[1,"x"]`},
		{"name": "B", "pop": uint64(1000), "cap": false},
	}
	for i := range want {
		f, err := l.Feature(i)
		if err != nil {
			t.Fatal(err)
		}
		if !f.HasID || f.ID != uint64(i+7) || f.Type != Point {
			t.Errorf("feature %d header: %+v", i, f)
		}
		p, err := f.Properties()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, want[i]) {
			t.Errorf("feature %d properties\n got %#v\nwant %#v", i, p, want[i])
		}
		// The tag indexes name the same properties.
		tags, err := f.Tags()
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := l.Keys()
		vals, _ := l.Values()
		fromTags := map[string]any{}
		for k := 0; k+1 < len(tags); k += 2 {
			fromTags[keys[tags[k]]] = vals[tags[k+1]]
		}
		if !reflect.DeepEqual(fromTags, want[i]) {
			t.Errorf("feature %d properties from its tags %#v", i, fromTags)
		}
		g, err := f.Geometry()
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Points) != 1 || g.Points[0] != (XY{int32(i), 3}) {
			t.Errorf("feature %d geometry %+v", i, g)
		}
	}
	if _, err := l.Feature(2); err == nil {
		t.Error("out of range feature accepted")
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := NewLayerBuilder("", 0); err == nil {
		t.Error("empty name accepted")
	}
	a, _ := NewLayerBuilder("x", 0)
	b, _ := NewLayerBuilder("x", 0)
	for _, l := range []*LayerBuilder{a, b} {
		l.Add(Feature{Geometry: Geometry{Type: Point, Points: []XY{{1, 1}}}})
	}
	if _, err := EncodeTile(a, b); err == nil {
		t.Error("duplicate layer names accepted")
	}
	if _, err := a.Add(Feature{Geometry: Geometry{Type: LineString, Lines: [][]XY{{{math.MinInt32, 0}, {math.MaxInt32, 0}}}}}); err == nil {
		t.Error("delta overflowing 32 bits accepted")
	}
	if _, err := a.Add(Feature{Geometry: Geometry{Type: Point, Points: []XY{{1, 1}}}, Properties: map[string]any{"c": make(chan int)}}); err == nil {
		t.Error("unencodable property accepted")
	}
}

func TestDecodeErrors(t *testing.T) {
	layer := func(body []byte) []byte { return appendBytesField(nil, 3, body) }
	named := appendStringField(nil, 1, "l")
	tests := map[string][]byte{
		"truncated varint": {0x1a, 0x80},
		"length past end":  {0x1a, 0x05, 0x01},
		"field zero":       {0x00},
		"group wire type":  {0x1b},
		"no name":          layer(appendVarintField(nil, 15, 2)),
		"bad version":      layer(appendVarintField(append([]byte{}, named...), 15, 9)),
		"zero extent":      layer(appendVarintField(append([]byte{}, named...), 5, 0)),
		"duplicate layer":  append(layer(named), layer(named)...),
	}
	for name, data := range tests {
		if _, err := Decode(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGeometryErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  GeomType
		cmds []uint32
	}{
		{"empty point", Point, nil},
		{"point lineto", Point, []uint32{10, 2, 2}},
		{"point trailing", Point, []uint32{9, 2, 2, 15}},
		{"count beyond data", Point, []uint32{command(cmdMoveTo, 1<<28), 2, 2}},
		{"unknown command", LineString, []uint32{9, 2, 2, 3}},
		{"line without lineto", LineString, []uint32{9, 2, 2}},
		{"line moveto count 2", LineString, []uint32{17, 2, 2, 2, 2}},
		{"ring not closed", Polygon, []uint32{9, 0, 0, 18, 10, 0, 0, 10}},
		{"ring too short", Polygon, []uint32{9, 0, 0, 10, 10, 0, 15}},
		{"cursor overflow", LineString, []uint32{9, zigzag32(math.MaxInt32), 0, 10, 2, 0}},
		{"unknown type", GeomType(0), []uint32{9, 2, 2}},
	}
	for _, tc := range tests {
		if _, err := decodeGeometry(tc.typ, tc.cmds); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// ogrCounts runs ogrinfo on an MVT file and returns feature counts per layer.
func ogrCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	bin, err := exec.LookPath("ogrinfo")
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatal("ogrinfo not found and TESSERA_REQUIRE_TOOLS=1")
		}
		t.Log("ogrinfo (gdal-bin) not installed: skipping the GDAL cross-check")
		return nil
	}
	out, err := exec.Command(bin, "-ro", "-al", "-so", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^Layer name: (.+)\n(?:.*\n)*?Feature Count: (\d+)`)
	counts := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[2])
		counts[m[1]] += n
	}
	return counts
}

// checkTile decodes every feature of a tile and checks structural invariants.
func checkTile(t *testing.T, data []byte) *Tile {
	t.Helper()
	tile, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range tile.Layers {
		ext := int32(l.Extent)
		for i := 0; i < l.Len(); i++ {
			f, err := l.Feature(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Properties(); err != nil {
				t.Fatal(err)
			}
			g, err := f.Geometry()
			if err != nil {
				t.Fatalf("layer %s feature %d: %v", l.Name, i, err)
			}
			var pts []XY
			pts = append(pts, g.Points...)
			for _, line := range g.Lines {
				if len(line) < 2 {
					t.Fatalf("layer %s feature %d: line with %d points", l.Name, i, len(line))
				}
				pts = append(pts, line...)
			}
			for _, poly := range g.Polygons {
				for j, ring := range poly {
					if len(ring) < 4 || ring[0] != ring[len(ring)-1] {
						t.Fatalf("layer %s feature %d: ring not closed or too short", l.Name, i)
					}
					if (RingArea(ring) > 0) != (j == 0) && (RingArea(poly[0]) > 0) {
						t.Fatalf("layer %s feature %d: ring %d has wrong winding", l.Name, i, j)
					}
				}
			}
			// Geometry stays near the tile (producers use buffers of at most
			// a fraction of the extent).
			for _, p := range pts {
				if p.X < -ext || p.X > 2*ext || p.Y < -ext || p.Y > 2*ext {
					t.Fatalf("layer %s feature %d: point %v far outside the tile", l.Name, i, p)
				}
			}
		}
	}
	return tile
}

func TestDecodeFixtures(t *testing.T) {
	shared := sharedDir(t)
	tests := []struct {
		path       string
		wantLayers []string
	}{
		{"fixtures/tegola/provider/testdata/11_358_827.pbf", []string{"land", "transport_lines", "landuse_areas"}},
		{"fixtures/versatiles/testdata/shortbread-tile.pbf", []string{"streets", "buildings", "addresses"}},
		{"fixtures/martin/tests/fixtures/render_cassette/tiles.openfreemap.org/planet/20260726_080001_pt/0/0/0.pbf", []string{"water", "place"}},
	}
	// The MapLibre demo tiles recorded by martin (z0..z5).
	demo, _ := filepath.Glob(filepath.Join(shared, "fixtures/martin/tests/fixtures/render_cassette/demotiles.maplibre.org/tiles/*/*/*.pbf"))
	if len(demo) < 10 {
		t.Errorf("found only %d demotiles fixtures", len(demo))
	}
	for _, p := range demo {
		rel, _ := filepath.Rel(shared, p)
		tests = append(tests, struct {
			path       string
			wantLayers []string
		}{rel, []string{"countries"}})
	}
	for i, tc := range tests {
		t.Run(strings.TrimPrefix(tc.path, "fixtures/"), func(t *testing.T) {
			path := filepath.Join(shared, tc.path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tile := checkTile(t, data)
			for _, name := range tc.wantLayers {
				if l := tile.Layer(name); l == nil || l.Len() == 0 {
					t.Errorf("layer %q missing or empty", name)
				}
			}
			if i >= 5 {
				return // GDAL starts slowly: cross-check the first few only
			}
			counts := ogrCounts(t, path)
			if counts == nil {
				return
			}
			got := map[string]int{}
			for _, l := range tile.Layers {
				got[l.Name] = l.Len()
			}
			if !reflect.DeepEqual(got, counts) {
				t.Errorf("feature counts differ from ogrinfo\n got %v\nogr %v", got, counts)
			}
		})
	}
}

// TestDecodeMBTiles decodes every tile of a tippecanoe MBTiles file and checks
// that the cities found at the highest zoom are exactly the 68 the file's
// tilestats metadata counts.
func TestDecodeMBTiles(t *testing.T) {
	shared := sharedDir(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(shared, "fixtures/mbtileserver/testdata/world_cities.mbtiles")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT zoom_level, tile_data FROM tiles")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names := map[string]bool{}
	tiles := 0
	for rows.Next() {
		var z int
		var blob []byte
		if err := rows.Scan(&z, &blob); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(blob))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		tile := checkTile(t, data)
		tiles++
		l := tile.Layer("cities")
		if l == nil {
			t.Fatalf("tile at z%d has no cities layer", z)
		}
		if z != 6 {
			continue
		}
		for i := 0; i < l.Len(); i++ {
			f, _ := l.Feature(i)
			if f.Type != Point {
				t.Fatalf("city of type %v", f.Type)
			}
			p, _ := f.Properties()
			name, ok := p["name"].(string)
			if !ok {
				t.Fatalf("city without name: %v", p)
			}
			names[name] = true
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if tiles != 196 {
		t.Errorf("decoded %d tiles, want 196", tiles)
	}
	if len(names) != 68 {
		t.Errorf("found %d distinct cities at z6, tilestats says 68", len(names))
	}
}

func FuzzDecode(f *testing.F) {
	b, _ := NewLayerBuilder("l", 0)
	b.Add(Feature{ID: 1, HasID: true, Geometry: Geometry{Type: Polygon, Polygons: [][][]XY{{{{0, 0}, {10, 0}, {10, 10}, {0, 0}}}}}, Properties: map[string]any{"a": 1, "b": "x", "c": 1.5}})
	b.Add(Feature{Geometry: Geometry{Type: LineString, Lines: [][]XY{{{0, 0}, {10, 0}}}}})
	b.Add(Feature{Geometry: Geometry{Type: Point, Points: []XY{{3, 3}}}})
	seed, _ := EncodeTile(b)
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0x1a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		tile, err := Decode(data)
		if err != nil {
			return
		}
		for _, l := range tile.Layers {
			l.Keys()
			l.Values()
			for i := 0; i < l.Len(); i++ {
				ft, err := l.Feature(i)
				if err != nil {
					continue
				}
				ft.Properties()
				g, err := ft.Geometry()
				if err != nil {
					continue
				}
				// Whatever decodes must encode again (unless reordering
				// rings makes a move span more than 32 bits).
				nb, _ := NewLayerBuilder(l.Name, l.Extent)
				if _, err := nb.Add(Feature{Geometry: g}); err != nil && !strings.Contains(err.Error(), "overflows 32 bits") {
					t.Fatalf("re-encode: %v", err)
				}
			}
		}
	})
}

// oneFeatureLayer encodes a tile of one layer "l" with the feature and
// returns the layer decoded.
func oneFeatureLayer(t *testing.T, f Feature) *Layer {
	t.Helper()
	b, _ := NewLayerBuilder("l", 0)
	if _, err := b.Add(f); err != nil {
		t.Fatal(err)
	}
	data, err := EncodeTile(b)
	if err != nil {
		t.Fatal(err)
	}
	tile, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return tile.Layers[0]
}
