package symbols

import (
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/text"
)

func TestMergeLinesTable(t *testing.T) {
	type piece struct {
		text string
		tile int
		pts  []orb.Point
	}
	tests := []struct {
		name   string
		pieces []piece
		// want: for each feature kept, its first line
		want [][]orb.Point
	}{
		{"end to start", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"A", 0, []orb.Point{{1, 0}, {2, 1}}}},
			[][]orb.Point{{{0, 0}, {1, 0}, {2, 1}}}},
		{"later piece goes before", []piece{{"A", 0, []orb.Point{{1, 0}, {2, 0}}}, {"A", 0, []orb.Point{{0, 0}, {1, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}, {2, 0}}}},
		{"bridge joins two", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"A", 0, []orb.Point{{2, 0}, {3, 0}}}, {"A", 0, []orb.Point{{1, 0}, {2, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}, {2, 0}, {3, 0}}}},
		{"different text stays apart", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"B", 0, []orb.Point{{1, 0}, {2, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}}, {{1, 0}, {2, 0}}}},
		{"different tiles stay apart", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"A", 1, []orb.Point{{1, 0}, {2, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}}, {{1, 0}, {2, 0}}}},
		{"meeting end to end is not joined", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"A", 0, []orb.Point{{2, 0}, {1, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}}, {{2, 0}, {1, 0}}}},
		{"no text is not joined", []piece{{"", 0, []orb.Point{{0, 0}, {1, 0}}}, {"", 0, []orb.Point{{1, 0}, {2, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}}, {{1, 0}, {2, 0}}}},
		{"a chain of three in order", []piece{{"A", 0, []orb.Point{{0, 0}, {1, 0}}}, {"A", 0, []orb.Point{{1, 0}, {2, 0}}}, {"A", 0, []orb.Point{{2, 0}, {3, 0}}}},
			[][]orb.Point{{{0, 0}, {1, 0}, {2, 0}, {3, 0}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in []*shapedSymbol
			for _, p := range tc.pieces {
				line := append([]orb.Point(nil), p.pts...)
				in = append(in, &shapedSymbol{
					f:        &scene.Feature{Kind: "LineString", Parts: [][]orb.Point{p.pts}, Lines: [][]orb.Point{line}, Tile: [3]int{0, p.tile, 1}},
					sections: []text.Section{{Text: p.text}},
				})
			}
			out := mergeLines(in)
			if len(out) != len(tc.want) {
				t.Fatalf("%d features, want %d", len(out), len(tc.want))
			}
			for i, ss := range out {
				got := ss.lines[0]
				if len(got) != len(tc.want[i]) {
					t.Fatalf("feature %d: %v, want %v", i, got, tc.want[i])
				}
				for k := range got {
					if got[k] != tc.want[i][k] {
						t.Fatalf("feature %d: %v, want %v", i, got, tc.want[i])
					}
				}
			}
			// The decoded features' lines are left as they were.
			for i, p := range tc.pieces {
				if l := in[i].f.Lines[0]; len(l) != len(p.pts) {
					t.Errorf("feature %d's own line changed: %v", i, l)
				}
			}
		})
	}
}
