package sources

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
)

// TestImageWarp checks that the warp puts the picture's corners on the
// source's corners and that texCoord inverts it, for a rectangle, a
// parallelogram and quadrilaterals that are neither.
func TestImageWarp(t *testing.T) {
	tests := []struct {
		name    string
		corners [4][2]float64 // tile units
		affine  bool
	}{
		{"rectangle", [4][2]float64{{1000, 1000}, {5000, 1000}, {5000, 3000}, {1000, 3000}}, true},
		{"parallelogram", [4][2]float64{{1000, 1000}, {5000, 1500}, {5500, 3500}, {1500, 3000}}, true},
		{"trapezoid (projective)", [4][2]float64{{2000, 1000}, {4000, 1000}, {5000, 3000}, {1000, 3000}}, false},
		{"kite (projective)", [4][2]float64{{3000, 500}, {5000, 2000}, {3000, 5000}, {1000, 2000}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &ImageCover{Corners: tc.corners, Tile: [3]float64{0, 0, 0}}
			c.warp = imageWarp(c.Corners)
			if got := c.warp == [3]float64{0, 0, 1}; got != tc.affine {
				t.Errorf("warp %v, affine %v, want %v", c.warp, got, tc.affine)
			}
			for i, st := range [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				if p := c.at(st[0], st[1]); math.Hypot(p[0]-tc.corners[i][0], p[1]-tc.corners[i][1]) > 1e-6 {
					t.Errorf("corner %d at %v, want %v", i, p, tc.corners[i])
				}
			}
			for _, st := range [][2]float64{{0.25, 0.25}, {0.5, 0.5}, {0.9, 0.1}, {0.3, 0.8}} {
				p := c.at(st[0], st[1])
				s, tt, ok := c.TexCoord(p[0]/8192, p[1]/8192)
				if !ok || math.Abs(s-st[0]) > 1e-6 || math.Abs(tt-st[1]) > 1e-6 {
					t.Errorf("texCoord(at(%v)) = %v, %v, %v", st, s, tt, ok)
				}
			}
			// Outside the quadrilateral nothing lands.
			if _, _, ok := c.TexCoord(7000.0/8192, 7000.0/8192); ok {
				t.Error("a point outside has texture coordinates")
			}
		})
	}
	// The projective warp keeps straight lines straight: the middle of
	// the picture is where the diagonals cross.
	c := &ImageCover{Corners: [4][2]float64{{2000, 1000}, {4000, 1000}, {5000, 3000}, {1000, 3000}}}
	c.warp = imageWarp(c.Corners)
	mid := c.at(0.5, 0.5)
	// Diagonals of this trapezoid cross at x = 3000 and y = 1000 +
	// 2000*2000/(2000+4000).
	if math.Abs(mid[0]-3000) > 1e-6 || math.Abs(mid[1]-(1000+2000*2000.0/6000)) > 1e-6 {
		t.Errorf("middle at %v, want where the diagonals cross", mid)
	}
}

// TestTileCorners checks GL's rounding of the corners to the units of the
// smallest tile that holds them.
func TestTileCorners(t *testing.T) {
	var c [4][2]float64
	for i, ll := range [][2]float64{{-10, 10}, {10, 10}, {10, -10}, {-10, -10}} {
		c[i][0], c[i][1] = geo.LonLatToWorld(ll[0], ll[1])
	}
	pts, tile := tileCorners(c)
	// 20° of longitude is 1/18 of the world: the tile is at zoom 4 (1/16
	// of the world still holds it), the one at the box's centre.
	if tile != [3]float64{4, 8, 8} {
		t.Errorf("tile %v, want 4/8/8", tile)
	}
	for i, p := range pts {
		if p[0] != math.Round(p[0]) || p[1] != math.Round(p[1]) {
			t.Errorf("corner %d = %v, not whole units", i, p)
		}
		if x := (c[i][0]*16 - 8) * 8192; math.Abs(p[0]-x) > 0.5 {
			t.Errorf("corner %d x = %v, want %v rounded", i, p[0], x)
		}
	}
}
