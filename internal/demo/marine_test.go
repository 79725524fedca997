package demo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/tesseramaps/tessera/internal/opendata"
)

// TestWaterLabelsInWater checks every water label against Natural Earth's
// land (npm world-atlas, cached in the repository's .cache/opendata): the
// label point is in open water, at least 0.3° from any land polygon's
// bounding ring.
func TestWaterLabelsInWater(t *testing.T) {
	requireNPM(t)
	if testing.Short() {
		t.Skip("resolves world-atlas@2 with npm")
	}
	dir, err := opendata.NPM(context.Background(), filepath.Join(repoRoot(t), ".cache", "opendata"), WorldAtlasSpec)
	if err != nil {
		t.Fatalf("fetch %s: %v", WorldAtlasSpec, err)
	}
	top, err := readTopoJSON(filepath.Join(dir, landFile))
	if err != nil {
		t.Fatal(err)
	}
	land, _, err := landAndWater(top)
	if err != nil {
		t.Fatal(err)
	}
	var polys []orb.Polygon
	for _, f := range land {
		polys = append(polys, f.Geometry.(orb.Polygon))
	}
	inLand := func(pt orb.Point) bool {
		for _, p := range polys {
			if p.Bound().Contains(pt) && planar.PolygonContains(p, pt) {
				return true
			}
		}
		return false
	}
	// The check itself: Paris and the Caspian Sea's centre.
	if !inLand(orb.Point{2.35, 48.85}) || inLand(orb.Point{50.5, 42}) {
		t.Fatal("land test misplaces Paris or the Caspian Sea")
	}
	names := map[string]int{}
	for _, w := range waterLabels {
		names[w.name]++
		for _, d := range []orb.Point{{0, 0}, {0.3, 0}, {-0.3, 0}, {0, 0.3}, {0, -0.3}} {
			pt := orb.Point{w.lon + d[0], w.lat + d[1]}
			if inLand(pt) {
				t.Errorf("%s: %v is on land", w.name, pt)
				break
			}
		}
	}
	for _, f := range waterLabelFeatures() {
		if f.MinZoom < 0 || f.MinZoom > 5 || f.Properties["rank"].(int) < 1 || f.Properties["rank"].(int) > 3 {
			t.Errorf("%v: min zoom %d rank %v", f.Properties["name"], f.MinZoom, f.Properties["rank"])
		}
	}
	if names["Pacific Ocean"] != 2 || names["Atlantic Ocean"] != 2 || names["Indian Ocean"] != 1 {
		t.Errorf("ocean labels: %v", names)
	}
}
