package symbols

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/text"
)

// TestPlaceOriented checks the choice GL makes between a label along a
// line and its vertical alternative: the alternative where the label runs
// steeper than 45 degrees on screen, read downwards; the label itself,
// read left to right, elsewhere or when it has no alternative or does not
// keep upright.
func TestPlaceOriented(t *testing.T) {
	shaping := func(n int, vertical bool) text.Shaping {
		sh := text.Shaping{Left: -float64(n) * 12, Right: float64(n) * 12}
		for i := range n {
			sh.Glyphs = append(sh.Glyphs, text.Glyph{X: float64(i*24 - n*12), Scale: 1, Metrics: text.Metrics{Advance: 24}, Upright: vertical})
		}
		return sh
	}
	tests := []struct {
		name         string
		degrees      float64 // the line's direction on screen, clockwise from east
		steep        bool    // the label has a vertical alternative
		keepUpright  bool
		wantVertical bool
	}{
		{"down the screen", 90, true, true, true},
		{"up the screen: read downwards", -90, true, true, true},
		{"steep", 60, true, true, true},
		{"steep the other way", 120, true, true, true},
		{"under 45 degrees", 40, true, true, false},
		{"flat, backwards", 170, true, true, false},
		{"no alternative", 90, false, true, false},
		{"not kept upright", 90, true, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sin, cos := math.Sincos(tc.degrees * math.Pi / 180)
			pts := []raster.Point{{X: 200 - 150*cos, Y: 200 - 150*sin}, {X: 200 + 150*cos, Y: 200 + 150*sin}}
			lp := &linePath{pts: pts, seg: 0, at: raster.Point{X: 200, Y: 200}, angle: tc.degrees * math.Pi / 180}
			var steep *text.Shaping
			if tc.steep {
				v := shaping(4, true)
				steep = &v
			}
			draw, drawn, boxes, ok := lp.placeOriented(shaping(4, false), steep, 1, 0, 0, tc.keepUpright)
			if !ok {
				t.Fatal("the label did not fit")
			}
			if len(boxes) != 4 || len(draw) != 4 {
				t.Fatalf("%d glyphs drawn and %d boxes, want 4 and 4", len(draw), len(boxes))
			}
			if vertical := drawn.Glyphs[0].Upright; vertical != tc.wantVertical {
				t.Fatalf("vertical alternative drawn %v, want %v", vertical, tc.wantVertical)
			}
			first, last := draw[0].at, draw[len(draw)-1].at
			switch {
			case tc.wantVertical && first.Y > last.Y:
				t.Errorf("vertical label reads upwards: first glyph at %v, last at %v", first, last)
			case !tc.wantVertical && tc.keepUpright && first.X > last.X:
				t.Errorf("label reads right to left: first glyph at %v, last at %v", first, last)
			}
		})
	}
}

// TestTileFrame pins the frames lines are laid out in: tile units per CSS
// pixel (8192 over a 512-pixel tile, fewer when overscaled), the way in
// and out of tile units, and the grid of the layout zoom for lines not
// cut into tiles.
func TestTileFrame(t *testing.T) {
	tests := []struct {
		id        [3]int
		zoom      float64
		overscale float64
		perPixel  float64
		world     orb.Point
		tile      tilePoint
	}{
		{[3]int{0, 0, 0}, 0, 1, 16, orb.Point{0.5, 0.25}, tilePoint{4096, 2048}},
		{[3]int{1, 2, 2}, 2, 1, 16, orb.Point{0.625, 0.375}, tilePoint{4096, 4096}},
		{[3]int{1, 2, 2}, 4, 4, 4, orb.Point{0.5, 0.25}, tilePoint{0, 0}},
		// A tile above the layout zoom is never made smaller.
		{[3]int{3, 5, 3}, 1, 1, 16, orb.Point{0.75, 0.5}, tilePoint{8192, 8192}},
		// Not cut into tiles: the grid of the layout zoom from the corner.
		{[3]int{0, 0, -1}, 3, 1, 16, orb.Point{0.125, 0.5}, tilePoint{8192, 32768}},
	}
	for _, tc := range tests {
		f := frameOf(tc.id, tc.zoom)
		if f.overscale != tc.overscale || f.perPixel != tc.perPixel {
			t.Errorf("frameOf(%v, %g): overscale %g, %g units a pixel; want %g, %g", tc.id, tc.zoom, f.overscale, f.perPixel, tc.overscale, tc.perPixel)
		}
		if got := f.toTile(tc.world); got != tc.tile {
			t.Errorf("frameOf(%v, %g).toTile(%v) = %v, want %v", tc.id, tc.zoom, tc.world, got, tc.tile)
		}
		if got := f.toWorld(tc.tile); got != tc.world {
			t.Errorf("frameOf(%v, %g).toWorld(%v) = %v, want %v", tc.id, tc.zoom, tc.tile, got, tc.world)
		}
	}
}

// TestVertexAt pins which vertex an anchor was rounded onto.
func TestVertexAt(t *testing.T) {
	line := []tilePoint{{0, 0}, {10, 0}, {10, 10}}
	tests := []struct {
		a    lineAnchor
		want int
	}{
		{lineAnchor{tilePoint{5, 0}, 0}, -1},
		{lineAnchor{tilePoint{0, 0}, 0}, 0},
		{lineAnchor{tilePoint{10, 0}, 0}, 1},
		{lineAnchor{tilePoint{10, 0}, 1}, 1},
		{lineAnchor{tilePoint{10, 10}, 1}, 2},
	}
	for _, tc := range tests {
		if got := vertexAt(line, tc.a); got != tc.want {
			t.Errorf("vertexAt(%v) = %d, want %d", tc.a, got, tc.want)
		}
	}
}
