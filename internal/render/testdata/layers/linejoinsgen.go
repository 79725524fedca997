//go:build ignore

// linejoinsgen writes line-joins.json: six corners of 80-pixel lines in a
// 400x300 view at zoom 10, inside one tile (round joins turning 70.6, 91.2
// and 112.3 degrees, a miter and a round join with line-miter-limit 1 at 30
// and 20 degrees, a bevel join at 30), each turned about its point.
// Run from this folder: go run linejoinsgen.go > line-joins.json
package main

import (
	"encoding/json"
	"math"
	"os"
)

const z = 10.0

func unproject(px, py float64) [2]float64 {
	w := 512 * math.Exp2(z)
	lon := px/w*360 - 180
	lat := math.Atan(math.Sinh(math.Pi*(1-2*py/w))) * 180 / math.Pi
	r := func(v float64) float64 { return math.Round(v*1e9) / 1e9 }
	return [2]float64{r(lon), r(lat)}
}

func main() {
	cx, cy := 512*512+256.0, 512*512-256.0
	type corner struct {
		k          string
		dx, dy     float64 // from the view's centre
		turn, spin float64 // degrees; spin turns the corner about its point
		reverse    bool
	}
	corners := []corner{
		{"round", -130, -70, 70.6, 0, false},
		{"round", 0, -70, 91.2, 180, true},
		{"round", 130, -70, 112.3, 30, false},
		{"miter1", -130, 75, 30, 0, false},
		{"round1", 0, 75, 20, 200, true},
		{"bevel", 130, 75, 30, -20, false},
	}
	const leg = 45.0
	var feats []any
	for _, c := range corners {
		t := c.turn * math.Pi / 180
		s := c.spin * math.Pi / 180
		pt := func(x, y float64) [2]float64 {
			// rotate (x, y) by s about the corner, then place it
			rx, ry := x*math.Cos(s)-y*math.Sin(s), x*math.Sin(s)+y*math.Cos(s)
			return unproject(cx+c.dx+rx, cy+c.dy+ry)
		}
		A := pt(-leg*math.Cos(-t/2), -leg*math.Sin(-t/2))
		C := pt(0, 0)
		B := pt(leg*math.Cos(t/2), leg*math.Sin(t/2))
		coords := [][2]float64{A, C, B}
		if c.reverse {
			coords = [][2]float64{B, C, A}
		}
		feats = append(feats, map[string]any{"type": "Feature", "properties": map[string]any{"k": c.k},
			"geometry": map[string]any{"type": "LineString", "coordinates": coords}})
	}
	layer := func(id, k string, layout map[string]any) map[string]any {
		return map[string]any{"id": id, "type": "line", "source": "c", "filter": []any{"==", []any{"get", "k"}, k},
			"layout": layout, "paint": map[string]any{"line-color": "#203040", "line-width": 80}}
	}
	st := map[string]any{
		"version": 8, "center": unproject(cx, cy), "zoom": z,
		"sources": map[string]any{"c": map[string]any{"type": "geojson", "data": map[string]any{"type": "FeatureCollection", "features": feats}}},
		"layers": []any{
			map[string]any{"id": "bg", "type": "background", "paint": map[string]any{"background-color": "#f4f1ea"}},
			layer("round", "round", map[string]any{"line-join": "round"}),
			layer("miter1", "miter1", map[string]any{"line-join": "miter", "line-miter-limit": 1}),
			layer("round1", "round1", map[string]any{"line-join": "round", "line-miter-limit": 1}),
			layer("bevel", "bevel", map[string]any{"line-join": "bevel"}),
		},
	}
	b, _ := json.MarshalIndent(st, "", " ")
	os.Stdout.Write(append(b, '\n'))
}
