//go:build ignore

// mvtgen writes the vector tiles of the extrusion-sliced reference
// pictures: one zoom-14 tile (8192/8191, just north-east of 0,0) of
// buildings (layer "b", a height "h" and a kind "t" each) around its
// centre, where the tiles of zooms 15 to 17 cut from it meet, so that
// walls cross the borders of the slices GL JS 6 cuts the overzoomed tile
// into; a few lie exactly along such a border, one has a courtyard, some
// are turned. The eight tiles around it are written empty, and the same
// buildings as GeoJSON (buildings.geojson); tiles-cut holds the tile of
// extrusion-sliced-cut (cutBuildings). Run from this folder:
// go run mvtgen.go
package main

import (
	"encoding/json"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tesseramaps/tessera/internal/mvt"
)

const extent = 4096

func main() {
	write("tiles", buildings())
	write("tiles-cut", cutBuildings())
	if err := writeGeoJSON("buildings.geojson"); err != nil {
		log.Fatal(err)
	}
}

// write writes body as tile 14/8192/8191 below root, and the eight tiles
// around it empty.
func write(root string, tile []byte) {
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			var body []byte
			if dx == 0 && dy == 0 {
				body = tile
			}
			dir := filepath.Join(root, "14", strconv.Itoa(8192+dx))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(8191+dy)+".pbf"), body, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// cutBuildings are two tall buildings across the border of two zoom-17
// tiles cut from the tile (y = the tile's middle), for a view that shows
// only the northern tile (extrusion-sliced-cut): the parts in the southern
// tile are not drawn, and no wall closes them where the tile was cut.
func cutBuildings() []byte {
	lb, err := mvt.NewLayerBuilder("b", extent)
	if err != nil {
		log.Fatal(err)
	}
	const c = extent / 2
	for _, b := range []struct {
		x0, x1 int32
		h      int
	}{{c - 120, c - 40, 250}, {c + 40, c + 120, 120}} {
		ring := []mvt.XY{{X: b.x0, Y: c - 40}, {X: b.x1, Y: c - 40}, {X: b.x1, Y: c + 40}, {X: b.x0, Y: c + 40}}
		if _, err := lb.Add(mvt.Feature{Geometry: mvt.Geometry{Type: mvt.Polygon, Polygons: [][][]mvt.XY{{ring}}},
			Properties: map[string]any{"h": b.h}}); err != nil {
			log.Fatal(err)
		}
	}
	body, err := mvt.EncodeTile(lb)
	if err != nil {
		log.Fatal(err)
	}
	return body
}

type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) meets(o rect) bool {
	return r.x0 < o.x1+8 && o.x0 < r.x1+8 && r.y0 < o.y1+8 && o.y0 < r.y1+8
}

// building is one building as written, for the GeoJSON copy.
type building struct {
	h     int
	kind  string
	rings [][]mvt.XY
}

// geo collects the buildings written into the tile.
var geo []building

// writeGeoJSON writes the tile's buildings as GeoJSON (longitude,
// latitude to 9 decimals, rings closed): the same buildings from a GeoJSON
// source, which GL cuts into tiles of the view's zoom itself.
func writeGeoJSON(path string) error {
	type feature struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   map[string]any `json:"geometry"`
	}
	n := math.Exp2(14)
	var feats []feature
	for _, b := range geo {
		var coords [][][2]float64
		for _, r := range b.rings {
			var ring [][2]float64
			for _, p := range append(r, r[0]) {
				wx, wy := (8192+float64(p.X)/extent)/n, (8191+float64(p.Y)/extent)/n
				lon := wx*360 - 180
				lat := math.Atan(math.Sinh(math.Pi*(1-2*wy))) * 180 / math.Pi
				ring = append(ring, [2]float64{math.Round(lon*1e9) / 1e9, math.Round(lat*1e9) / 1e9})
			}
			coords = append(coords, ring)
		}
		feats = append(feats, feature{"Feature", map[string]any{"h": b.h, "t": b.kind}, map[string]any{"type": "Polygon", "coordinates": coords}})
	}
	body, err := json.Marshal(map[string]any{"type": "FeatureCollection", "features": feats})
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

func buildings() []byte {
	lb, err := mvt.NewLayerBuilder("b", extent)
	if err != nil {
		log.Fatal(err)
	}
	add := func(h int, kind string, rings ...[]mvt.XY) {
		geo = append(geo, building{h, kind, rings})
		if _, err := lb.Add(mvt.Feature{Geometry: mvt.Geometry{Type: mvt.Polygon, Polygons: [][][]mvt.XY{rings}},
			Properties: map[string]any{"h": h, "t": kind}}); err != nil {
			log.Fatal(err)
		}
	}
	box := func(r rect) []mvt.XY {
		return []mvt.XY{{X: int32(r.x0), Y: int32(r.y0)}, {X: int32(r.x1), Y: int32(r.y0)}, {X: int32(r.x1), Y: int32(r.y1)}, {X: int32(r.x0), Y: int32(r.y1)}}
	}
	const c = extent / 2
	// Along the borders of the slices: a building whose west wall is the
	// zoom-15 border (x = c), one whose north wall is it (y = c), one
	// whose east wall is a zoom-17 border (x = c - 512), and a courtyard
	// building across the centre.
	special := []rect{
		{c, c + 40, c + 70, c + 100},
		{c - 120, c, c - 50, c + 60},
		{c - 582, c - 90, c - 512, c - 30},
		{c - 60, c - 140, c + 50, c - 30},
	}
	add(35, "a", box(special[0]))
	add(50, "b", box(special[1]))
	add(25, "c", box(special[2]))
	add(40, "a", box(special[3]), box(rect{c - 30, c - 110, c + 20, c - 60}))
	rng := rand.New(rand.NewPCG(14, 17))
	kinds := []string{"a", "b", "c"}
	const step = 110
	for gy := -11; gy <= 11; gy++ {
		for gx := -11; gx <= 11; gx++ {
			cx := c + float64(gx*step) + rng.Float64()*30 - 15 + 25
			cy := c + float64(gy*step) + rng.Float64()*30 - 15 + 25
			w, d := 40+rng.Float64()*50, 40+rng.Float64()*50
			r := rect{cx - w/2, cy - d/2, cx + w/2, cy + d/2}
			h := 10 + rng.IntN(70)
			kind := kinds[rng.IntN(3)]
			clash := false
			for _, s := range special {
				if r.meets(s) {
					clash = true
				}
			}
			if clash {
				continue
			}
			if rng.IntN(4) == 0 {
				// Turned by 15 to 35 degrees about its centre.
				a := (15 + rng.Float64()*20) * math.Pi / 180
				s, co := math.Sincos(a)
				var ring []mvt.XY
				for _, p := range [][2]float64{{-w / 2, -d / 2}, {w / 2, -d / 2}, {w / 2, d / 2}, {-w / 2, d / 2}} {
					ring = append(ring, mvt.XY{X: int32(math.Round(cx + p[0]*co - p[1]*s)), Y: int32(math.Round(cy + p[0]*s + p[1]*co))})
				}
				add(h, kind, ring)
				continue
			}
			add(h, kind, box(r))
		}
	}
	body, err := mvt.EncodeTile(lb)
	if err != nil {
		log.Fatal(err)
	}
	return body
}
