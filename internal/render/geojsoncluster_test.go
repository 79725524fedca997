package render

import (
	"context"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// TestGeoJSONClusters reads a clustered source at several zooms: the
// cluster features carry GL's properties and the reduced ones.
func TestGeoJSONClusters(t *testing.T) {
	r := newRenderer(t)
	// Four points within about 0.1 degree (about 36 px at zoom 8) and one
	// far off.
	doc := `{"version": 8, "sources": {"g": {"type": "geojson", "cluster": true, CLUSTER
		"clusterProperties": {"sum": ["+", ["get", "v"]], "top": [["max", ["accumulated"], ["get", "top"]], ["get", "v"]]},
		"data": {"type": "FeatureCollection", "features": [
		{"type": "Feature", "properties": {"v": 1}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
		{"type": "Feature", "properties": {"v": 2}, "geometry": {"type": "Point", "coordinates": [0.05, 0]}},
		{"type": "Feature", "properties": {"v": 3}, "geometry": {"type": "Point", "coordinates": [0, 0.05]}},
		{"type": "Feature", "properties": {"v": 4}, "geometry": {"type": "Point", "coordinates": [0.05, 0.05]}},
		{"type": "Feature", "properties": {"v": 5}, "geometry": {"type": "Point", "coordinates": [15, 15]}},
		{"type": "Feature", "properties": {"v": 6}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}]}}},
		"layers": [{"id": "c", "type": "circle", "source": "g"}]}`
	tests := []struct {
		name    string
		options string
		zoom    float64
		// counts of the cluster features, and the lone points
		clusters []float64
		points   int
	}{
		{"zoom 8 gathers the four", "", 8, []float64{4}, 1},
		{"zoom 12 spreads them", "", 12, nil, 5},
		{"clusterMaxZoom 7 stops clustering at 8", `"clusterMaxZoom": 7,`, 8, nil, 5},
		{"clusterMinPoints 5 keeps four apart", `"clusterMinPoints": 5,`, 8, nil, 5},
		{"a small radius keeps them apart", `"clusterRadius": 5,`, 8, nil, 5},
		{"zoom 0 gathers everything", "", 0, []float64{5}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, strings.Replace(doc, "CLUSTER", tc.options, 1))
			v := View{Zoom: tc.zoom, Width: 64, Height: 64, PixelRatio: 1}
			s := sources.NewSet(st, v, mapResources{}, r.log, r.decoded)
			runs, err := s.Features(context.Background(), st.Layers[0])
			if err != nil {
				t.Fatal(err)
			}
			feats := runs.Flat()
			var clusters []float64
			points := 0
			for _, f := range feats {
				if f.Kind != "Point" {
					t.Errorf("a %s in a clustered source", f.Kind)
				}
				if c, ok := f.Expr.Property("cluster"); !ok || c.Kind() != expr.KindBoolean {
					points++
					continue
				}
				n, _ := f.Expr.Property("point_count")
				clusters = append(clusters, n.Num())
				id, _ := f.Expr.Property("cluster_id")
				if f.Expr.ID().Num() != id.Num() || id.Num() < 6 {
					t.Errorf("feature id %v, cluster_id %v", f.Expr.ID(), id)
				}
				abbr, _ := f.Expr.Property("point_count_abbreviated")
				if abbr.Num() != n.Num() {
					t.Errorf("point_count_abbreviated %v, want %v", abbr, n)
				}
				sum, _ := f.Expr.Property("sum")
				top, _ := f.Expr.Property("top")
				wantSum, wantTop := 10.0, 4.0
				if n.Num() == 5 {
					wantSum, wantTop = 15, 5
				}
				if sum.Num() != wantSum || top.Num() != wantTop {
					t.Errorf("sum %v top %v, want %v and %v", sum, top, wantSum, wantTop)
				}
			}
			if points != tc.points || len(clusters) != len(tc.clusters) {
				t.Fatalf("%d points and clusters %v, want %d and %v", points, clusters, tc.points, tc.clusters)
			}
			for i := range clusters {
				if clusters[i] != tc.clusters[i] {
					t.Errorf("clusters %v, want %v", clusters, tc.clusters)
				}
			}
		})
	}
}
