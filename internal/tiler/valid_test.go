package tiler

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/mvt"
)

func xy(pts ...int32) []mvt.XY {
	out := make([]mvt.XY, 0, len(pts)/2)
	for i := 0; i+1 < len(pts); i += 2 {
		out = append(out, mvt.XY{X: pts[i], Y: pts[i+1]})
	}
	return out
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestUntangle(t *testing.T) {
	tests := []struct {
		name string
		ring []mvt.XY
		area int64 // doubled area of the result (absolute); 0: nil
	}{
		{"simple square", xy(0, 0, 10, 0, 10, 10, 0, 10, 0, 0), 200},
		{"touching is not crossing", xy(0, 0, 10, 0, 10, 10, 5, 0, 0, 10, 0, 0), 100},
		// A square with a small twisted loop on its bottom edge: the loop
		// is dropped (the crossing (5.5, -1) rounds to (6, -1)).
		{"twisted loop", xy(0, 0, 6, 0, 5, -2, 4, -2, 7, 0, 10, 0, 10, 10, 0, 10, 0, 0), 201},
		// A figure eight of unequal loops crossing at (7.5, 7.5), rounded
		// to (8, 8): the larger loop is kept.
		{"figure eight", xy(0, 0, 30, 30, 30, 0, 0, 10, 0, 0), 660},
		// A bow tie with equal loops has no area as a whole; one loop stays.
		{"bow tie", xy(0, 0, 10, 10, 10, 0, 0, 10, 0, 0), 50},
		{"a line", xy(0, 0, 10, 0, 20, 0, 0, 0), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := untangle(slices.Clone(tc.ring))
			if tc.area == 0 {
				if got != nil {
					t.Fatalf("got %v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatal("got nil")
			}
			if _, _, ok := findCrossing([][]mvt.XY{got}, nil); ok {
				t.Errorf("ring still crosses itself: %v", got)
			}
			if got[0] != got[len(got)-1] {
				t.Errorf("ring not closed: %v", got)
			}
			if a := abs64(mvt.RingArea(got)); a != tc.area {
				t.Errorf("doubled area %d, want %d: %v", a, tc.area, got)
			}
		})
	}
}

func TestUntanglePolygon(t *testing.T) {
	ext := xy(0, 0, 100, 0, 100, 100, 0, 100, 0, 0)
	hole := xy(10, 10, 10, 20, 20, 20, 20, 10, 10, 10)
	tangled := xy(30, 30, 40, 40, 40, 30, 30, 40, 30, 30) // a bow tie: one loop stays
	got := untanglePolygon([][]mvt.XY{ext, hole, tangled, xy(50, 50, 60, 50, 50, 50)}, 0)
	if len(got) != 3 || !slices.Equal(got[0], ext) || !slices.Equal(got[1], hole) {
		t.Fatalf("got %v, want the exterior, the hole and one loop of the bow tie", got)
	}
	if _, _, ok := findCrossing(got[2:], nil); ok {
		t.Errorf("the bow tie still crosses itself: %v", got[2])
	}
	if got := untanglePolygon([][]mvt.XY{xy(0, 0, 10, 0, 0, 0), hole}, 0); got != nil {
		t.Errorf("exterior without area: got %v", got)
	}

	// holes crossing each other: the smaller is dropped when small enough
	continent := xy(10, 10, 10, 60, 60, 60, 60, 10, 10, 10) // doubled area 5000
	island := xy(55, 30, 55, 35, 65, 35, 65, 30, 55, 30)    // 100, crossing the continent
	far := xy(70, 70, 70, 80, 80, 80, 80, 70, 70, 70)       // 200, crossing nothing
	for _, tc := range []struct {
		small int64
		want  int
	}{{100, 3}, {99, 4}} {
		got := untanglePolygon([][]mvt.XY{ext, continent, island, far}, tc.small)
		if len(got) != tc.want {
			t.Errorf("small holes up to %d: %d rings, want %d", tc.small, len(got), tc.want)
		}
		if tc.want == 3 && (!slices.Equal(got[1], continent) || !slices.Equal(got[2], far)) {
			t.Errorf("small holes up to %d: kept %v", tc.small, got)
		}
	}
}

func TestFindCrossing(t *testing.T) {
	one := func(r []mvt.XY) [][]mvt.XY { return [][]mvt.XY{r} }
	if _, _, ok := findCrossing(one(xy(0, 0, 10, 0, 10, 10, 0, 10, 0, 0)), nil); ok {
		t.Error("a square crosses itself")
	}
	if a, b, ok := findCrossing(one(xy(0, 0, 10, 10, 10, 0, 0, 10, 0, 0)), nil); !ok || a.i != 0 || b.i != 2 {
		t.Errorf("bow tie: %v %v %v, want edges 0 and 2", a, b, ok)
	}
	// collinear overlap along a clip line is not a crossing
	if _, _, ok := findCrossing(one(xy(0, 0, 10, 0, 10, 5, 10, 2, 10, 8, 0, 8, 0, 0)), nil); ok {
		t.Error("collinear overlap reported as a crossing")
	}
	// two rings crossing each other, seen only when accepted
	square, shifted := xy(0, 0, 10, 0, 10, 10, 0, 10, 0, 0), xy(5, 5, 15, 5, 15, 15, 5, 15, 5, 5)
	if a, b, ok := findCrossing([][]mvt.XY{square, shifted}, nil); !ok || a.ring != 0 || b.ring != 1 {
		t.Errorf("two rings: %v %v %v", a, b, ok)
	}
	if _, _, ok := findCrossing([][]mvt.XY{square, shifted}, func(ra, rb int) bool { return ra == rb }); ok {
		t.Error("a crossing of two rings accepted as a ring's own")
	}
}

// tileUnits makes a polygon from positions given in z0 tile units (extent
// 4096), so that a test can place vertices relative to the simplification
// tolerance (0.2 px = 3.2 units at the default options).
func tileUnits(pts ...float64) orb.Polygon {
	var r orb.Ring
	for i := 0; i+1 < len(pts); i += 2 {
		lon, lat := Unproject(pts[i]/4096, pts[i+1]/4096)
		r = append(r, orb.Point{lon, lat})
	}
	return orb.Polygon{r}
}

// TestTilesDoNotCrossThemselves builds a polygon whose simplification at z0
// would cross itself: a vertex 2 units off the chord of its neighbours
// (under the 3.2-unit tolerance, so dropped) hides the tip of a spike of the
// same ring 1 unit from that chord. Dropped, the chord cuts through the
// spike; a renderer's triangulation then draws slivers across the map, as
// over north-east Siberia in the demo world. No ring of any tile may cross
// itself, and the polygon's area in the z0 tile stays the source's within
// 1% (the bay cut off by the chord, 90 by 100 units, is dropped).
func TestTilesDoNotCrossThemselves(t *testing.T) {
	poly := tileUnits(
		1000, 1000, 3000, 1000, 3000, 2000,
		2000, 1998, // the vertex simplification drops
		1900, 2000, 1900, 2100, 1990, 2100,
		2000, 1999, // the spike's tip
		2010, 2100, 2500, 2100, 2500, 2800, 1000, 2800, 1000, 1000)
	src := make([]mvt.XY, len(poly[0]))
	for i, p := range poly[0] {
		x, y := Project(p[0], p[1])
		src[i] = mvt.XY{X: int32(x*4096 + 0.5), Y: int32(y*4096 + 0.5)}
	}
	if _, _, ok := findCrossing([][]mvt.XY{src}, nil); ok {
		t.Fatal("the source ring crosses itself")
	}
	_, sink := build(t, []Layer{{Name: "land", Features: []Feature{{ID: 1, Geometry: poly}}}}, testOptions(0, 3))
	for _, id := range sink.Tiles() {
		for _, f := range features(t, sink, id.Z, id.X, id.Y, "land") {
			for _, p := range f.geom.Polygons {
				for _, r := range p {
					if a, b, ok := findCrossing([][]mvt.XY{r}, nil); ok {
						t.Errorf("tile %v: edges %v-%v and %v-%v cross", id, r[a.i], r[a.i+1], r[b.i], r[b.i+1])
					}
				}
			}
		}
	}
	var area int64
	for _, f := range features(t, sink, 0, 0, 0, "land") {
		for _, p := range f.geom.Polygons {
			area += netArea(p)
		}
	}
	want := abs64(mvt.RingArea(src))
	if d := abs64(area - want); d > want/100 {
		t.Errorf("doubled area in tile 0/0/0 %d, source %d", area, want)
	}
}

// TestDemoTilesDoNotCrossThemselves checks the demo world's tiles, when
// built (make run or tessera demo --data data; TESSERA_DEMO_TILES names
// another file), for rings that cross themselves and small holes crossing
// another ring, through zoom 4.
func TestDemoTilesDoNotCrossThemselves(t *testing.T) {
	path := filepath.Join(fixtures.RepoRoot(), "data", "tiles", "world.mbtiles")
	if p := os.Getenv("TESSERA_DEMO_TILES"); p != "" {
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no demo world at %s", path)
	}
	ctx := context.Background()
	r, err := mbtiles.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rings, bad := 0, 0
	err = r.Each(ctx, func(c mbtiles.Coord, data []byte) error {
		if c.Z > 4 {
			return nil
		}
		tile := decodeTile(t, data)
		for _, l := range tile.Layers {
			for i := 0; i < l.Len(); i++ {
				f, err := l.Feature(i)
				if err != nil {
					return err
				}
				g, err := f.Geometry()
				if err != nil {
					return err
				}
				for _, p := range g.Polygons {
					for _, r := range p {
						rings++
						if a, b, ok := findCrossing([][]mvt.XY{r}, nil); ok {
							if bad++; bad <= 10 {
								t.Errorf("tile %d/%d/%d layer %s: edges %v-%v and %v-%v cross", c.Z, c.X, c.Y, l.Name, r[a.i], r[a.i+1], r[b.i], r[b.i+1])
							}
						}
					}
					// no hole of up to 16 square pixels crosses another ring
					small := func(ra, rb int) bool {
						k := max(ra, rb)
						if ra > 0 && absArea(p[ra]) < absArea(p[rb]) {
							k = ra
						}
						return ra != rb && absArea(p[k]) <= 2*16*16*16
					}
					if a, b, ok := findCrossing(p, small); ok {
						if bad++; bad <= 10 {
							t.Errorf("tile %d/%d/%d layer %s: a small hole crosses another ring (rings %d and %d)", c.Z, c.X, c.Y, l.Name, a.ring, b.ring)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rings through z4, %d crossing themselves", rings, bad)
}
