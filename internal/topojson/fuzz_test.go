package topojson

import (
	"os"
	"testing"

	"github.com/paulmach/orb"
)

func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile("testdata/spec_example.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(twoSquares))
	f.Add([]byte(`{"type":"Topology","objects":{"o":{"type":"Polygon","arcs":[[0]]}},"arcs":[[[0,0],[1,1]]]}`))
	f.Add([]byte(`{"type":"Topology","transform":{"scale":[1,1],"translate":[0,0]},"objects":{"o":{"type":"MultiPolygon","arcs":[[[-1]]]}},"arcs":[[[0,0],[1,0],[0,1],[-1,-1]]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		top, err := Decode(data)
		if err != nil {
			return
		}
		top.MaxPoints = 100_000
		for _, name := range top.Objects() {
			feats, err := top.Features(name)
			if err != nil {
				continue
			}
			for _, ft := range feats {
				if ft.Geometry == nil || ft.Properties == nil {
					t.Fatalf("feature with nil geometry or properties: %+v", ft)
				}
				checkRings(t, ft.Geometry)
			}
			lines, err := top.MeshLines(name)
			if err != nil {
				continue
			}
			for _, l := range lines {
				if l.A < 0 || l.B < l.A || l.B >= len(feats) {
					t.Fatalf("mesh line %d uses features %d,%d of %d", l.Arc, l.A, l.B, len(feats))
				}
				if len(l.Line) < 2 {
					t.Fatalf("mesh line with %d points", len(l.Line))
				}
			}
		}
	})
}

func checkRings(t *testing.T, g orb.Geometry) {
	switch g := g.(type) {
	case orb.Polygon:
		for _, r := range g {
			if len(r) < 4 || r[0] != r[len(r)-1] {
				t.Fatalf("ring not closed or too short: %v", r)
			}
		}
	case orb.MultiPolygon:
		for _, p := range g {
			checkRings(t, p)
		}
	case orb.Collection:
		for _, c := range g {
			checkRings(t, c)
		}
	}
}
