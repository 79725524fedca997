package pmtiles

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// Published test vectors of the PMTiles tile id (the reference
// implementations' tests list the same values).
var tileIDVectors = []struct {
	z, x, y int
	id      uint64
}{
	{0, 0, 0, 0},
	{1, 0, 0, 1},
	{1, 0, 1, 2},
	{1, 1, 1, 3},
	{1, 1, 0, 4},
	{2, 0, 0, 5},
	{12, 3423, 1763, 19078479},
	{20, 1234, 5678, 366563052717},
	{25, 1234, 5678, 375299988763469},
	{26, 67108863, 0, 6004799503160660},
}

func TestTileIDVectors(t *testing.T) {
	for _, v := range tileIDVectors {
		id, err := ZXYToID(v.z, v.x, v.y)
		if err != nil || id != v.id {
			t.Errorf("ZXYToID(%d,%d,%d) = %d, %v; want %d", v.z, v.x, v.y, id, err, v.id)
		}
		z, x, y, err := IDToZXY(v.id)
		if err != nil || z != v.z || x != v.x || y != v.y {
			t.Errorf("IDToZXY(%d) = %d/%d/%d, %v; want %d/%d/%d", v.id, z, x, y, err, v.z, v.x, v.y)
		}
	}
}

func TestTileIDZoomEdges(t *testing.T) {
	// The first id of zoom z is (4^z-1)/3, computed here independently.
	var first uint64
	for z := 0; z <= MaxZoom; z++ {
		id, err := ZXYToID(z, 0, 0)
		if err != nil || id != first {
			t.Fatalf("ZXYToID(%d,0,0) = %d, %v; want %d", z, id, err, first)
		}
		if z > 0 {
			// The id just before is the last tile of zoom z-1.
			pz, _, _, err := IDToZXY(first - 1)
			if err != nil || pz != z-1 {
				t.Fatalf("IDToZXY(%d) zoom = %d, %v; want %d", first-1, pz, err, z-1)
			}
		}
		n := 1 << z
		for _, c := range [][2]int{{0, 0}, {n - 1, 0}, {0, n - 1}, {n - 1, n - 1}, {n / 2, n / 3}} {
			id, err := ZXYToID(z, c[0], c[1])
			if err != nil {
				t.Fatalf("ZXYToID(%d,%d,%d): %v", z, c[0], c[1], err)
			}
			if id < first || id-first >= uint64(n)*uint64(n) {
				t.Fatalf("ZXYToID(%d,%d,%d) = %d outside zoom range", z, c[0], c[1], id)
			}
			gz, gx, gy, err := IDToZXY(id)
			if err != nil || gz != z || gx != c[0] || gy != c[1] {
				t.Fatalf("round trip %d/%d/%d -> %d -> %d/%d/%d %v", z, c[0], c[1], id, gz, gx, gy, err)
			}
		}
		first += uint64(n) * uint64(n)
	}
	// first is now the first id of zoom 32, which does not exist.
	if MaxTileID != first-1 {
		t.Fatalf("MaxTileID = %d, want %d", MaxTileID, first-1)
	}
	if z, x, y, err := IDToZXY(MaxTileID); err != nil || z != 31 || x != 1<<31-1 || y != 0 {
		// The Hilbert curve of any order ends at the bottom-left corner
		// (x = n-1, y = 0) when it starts at (0,0) and its first step goes to (0,1).
		t.Fatalf("IDToZXY(MaxTileID) = %d/%d/%d %v", z, x, y, err)
	}
	if _, _, _, err := IDToZXY(MaxTileID + 1); !errors.Is(err, ErrCoord) {
		t.Fatalf("IDToZXY(MaxTileID+1) err = %v", err)
	}
}

func TestTileIDInvalid(t *testing.T) {
	for _, c := range [][3]int{{32, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {3, 8, 0}, {3, 0, 8}, {3, -1, 0}, {31, 1 << 31, 0}} {
		if _, err := ZXYToID(c[0], c[1], c[2]); !errors.Is(err, ErrCoord) {
			t.Errorf("ZXYToID%v err = %v, want ErrCoord", c, err)
		}
	}
}

// TestHilbertAdjacency checks the defining property of a Hilbert curve:
// consecutive ids of one zoom are neighbouring cells, and every cell is
// visited exactly once.
func TestHilbertAdjacency(t *testing.T) {
	for z := 0; z <= 7; z++ {
		n := 1 << z
		seen := make([]bool, n*n)
		base, _ := ZXYToID(z, 0, 0)
		px, py := -1, -1
		for d := 0; d < n*n; d++ {
			gz, x, y, err := IDToZXY(base + uint64(d))
			if err != nil || gz != z {
				t.Fatalf("IDToZXY(%d) = z%d %v", base+uint64(d), gz, err)
			}
			if seen[y*n+x] {
				t.Fatalf("z%d: cell %d,%d visited twice", z, x, y)
			}
			seen[y*n+x] = true
			if d > 0 {
				dx, dy := x-px, y-py
				if dx*dx+dy*dy != 1 {
					t.Fatalf("z%d: step %d jumps from %d,%d to %d,%d", z, d, px, py, x, y)
				}
			}
			px, py = x, y
		}
	}
}

func TestTileIDRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		z := rng.IntN(MaxZoom + 1)
		n := 1 << z
		x, y := rng.IntN(n), rng.IntN(n)
		id, err := ZXYToID(z, x, y)
		if err != nil {
			t.Fatal(err)
		}
		gz, gx, gy, err := IDToZXY(id)
		if err != nil || gz != z || gx != x || gy != y {
			t.Fatalf("%d/%d/%d -> %d -> %d/%d/%d %v", z, x, y, id, gz, gx, gy, err)
		}
		if z > 0 {
			p, ok := ParentID(id)
			want, _ := ZXYToID(z-1, x/2, y/2)
			if !ok || p != want {
				t.Fatalf("ParentID(%d) = %d %v, want %d", id, p, ok, want)
			}
		}
	}
	if _, ok := ParentID(0); ok {
		t.Fatal("ParentID(0) reported a parent")
	}
}

func BenchmarkZXYToID(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		_, _ = ZXYToID(14, i&16383, (i>>3)&16383)
	}
}
