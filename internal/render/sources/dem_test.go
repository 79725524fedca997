package sources

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

func TestDEMDecode(t *testing.T) {
	cone := func(x, y int) float64 {
		// A cone 3000 m high over the middle of the tile, on ground 50 m
		// below the sea.
		return math.Max(-50, 3000-80*math.Hypot(float64(x)-7.5, float64(y)-7.5))
	}
	tests := []struct {
		enc    string
		source string
		tol    float64 // the encoding's step
	}{
		{"mapbox", `{"type": "raster-dem", "tiles": ["x"]}`, 0.05},
		{"mapbox", `{"type": "raster-dem", "tiles": ["x"], "encoding": "mapbox"}`, 0.05},
		{"terrarium", `{"type": "raster-dem", "tiles": ["x"], "encoding": "terrarium"}`, 1.0 / 256},
		{"custom", `{"type": "raster-dem", "tiles": ["x"], "encoding": "custom", "redFactor": 100, "greenFactor": 1, "blueFactor": 0.01, "baseShift": 500}`, 0.005},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			st := rendertest.Parse(t, `{"version": 8, "sources": {"d": `+tc.source+`}, "layers": []}`)
			enc, err := encodingOf(st.SourceByKey["d"])
			if err != nil {
				t.Fatal(err)
			}
			d, err := decodeDEM(rendertest.DEMPNG(t, tc.enc, 16, cone), enc)
			if err != nil {
				t.Fatal(err)
			}
			if d.dim != 16 {
				t.Fatalf("dim %d, want 16", d.dim)
			}
			for y := 0; y < 16; y++ {
				for x := 0; x < 16; x++ {
					if got, want := d.at(x, y), cone(x, y); math.Abs(got-want) > tc.tol+1e-9 {
						t.Fatalf("elevation at %d,%d = %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
}

func TestDEMEncodingErrors(t *testing.T) {
	for _, src := range []string{
		`{"type": "raster-dem", "tiles": ["x"], "encoding": "lerc"}`,
		`{"type": "raster-dem", "tiles": ["x"], "encoding": 3}`,
	} {
		st := rendertest.Parse(t, `{"version": 8, "sources": {"d": `+src+`}, "layers": []}`)
		if _, err := encodingOf(st.SourceByKey["d"]); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
	// A custom encoding without factors takes 1, 1, 1 and 0.
	st := rendertest.Parse(t, `{"version": 8, "sources": {"d": {"type": "raster-dem", "tiles": ["x"], "encoding": "custom"}}, "layers": []}`)
	if enc, err := encodingOf(st.SourceByKey["d"]); err != nil || enc != (demEncoding{1, 1, 1, 0}) {
		t.Errorf("custom defaults %v, %v", enc, err)
	}
	if _, err := decodeDEM([]byte("no image"), mapboxEncoding); err == nil {
		t.Error("corrupt tile decoded")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 4, 2))); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeDEM(buf.Bytes(), mapboxEncoding); err == nil {
		t.Error("a tile that is not square decoded")
	}
	buf.Reset()
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, maxDEMSize+1, maxDEMSize+1))); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeDEM(buf.Bytes(), mapboxEncoding); err == nil {
		t.Error("a tile over the size limit decoded")
	}
}

// TestDEMBorder checks the two pixels of border: the tile's edge repeated
// until a neighbour fills them with its own pixels, corners included.
func TestDEMBorder(t *testing.T) {
	const dim = 8
	// One plane over the grid of tiles: pixel x, y of tile col, row.
	plane := func(col, row int) func(x, y int) float64 {
		return func(x, y int) float64 { return float64(3*(col*dim+x) + 7*(row*dim+y)) }
	}
	tile := func(col, row int) *DEMTile {
		d, err := decodeDEM(rendertest.DEMPNG(t, "terrarium", dim, plane(col, row)), terrariumEncoding)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	alone := tile(1, 1)
	for _, p := range [][2]int{{-2, -2}, {-1, 3}, {dim + 1, 0}, {4, dim + 1}, {dim, dim}} {
		edge := plane(1, 1)(max(0, min(dim-1, p[0])), max(0, min(dim-1, p[1])))
		if got := alone.at(p[0], p[1]); got != edge {
			t.Errorf("alone, border %v = %v, want the edge's %v", p, got, edge)
		}
	}
	// A 3 x 3 block of tiles: the middle one's border continues the plane.
	c := &DEMCover{Z: 3, Tiles: map[[2]int]*DEMTile{}}
	for row := 0; row < 3; row++ {
		for col := 0; col < 3; col++ {
			c.Tiles[[2]int{col, row}] = tile(col, row)
		}
	}
	backfillAll(c)
	mid := c.Tiles[[2]int{1, 1}]
	for y := -demBorder; y < dim+demBorder; y++ {
		for x := -demBorder; x < dim+demBorder; x++ {
			if got, want := mid.at(x, y), plane(1, 1)(x, y); got != want {
				t.Fatalf("backfilled, pixel %d,%d = %v, want %v", x, y, got, want)
			}
		}
	}
	// Across the antimeridian: column 0's western border is column 7's
	// east edge.
	w := &DEMCover{Z: 3, Tiles: map[[2]int]*DEMTile{{0, 1}: tile(0, 1), {7, 1}: tile(7, 1)}}
	backfillAll(w)
	if got, want := w.Tiles[[2]int{0, 1}].at(-1, 2), plane(7, 1)(dim-1, 2); got != want {
		t.Errorf("across the antimeridian, border = %v, want %v", got, want)
	}
}

func TestSourceNumbers(t *testing.T) {
	st := rendertest.Parse(t, `{"version": 8, "sources": {"d": {"type": "raster-dem", "tiles": ["x"], "redFactor": 2.5, "blueFactor": "x"}}, "layers": []}`)
	raw := st.SourceByKey["d"].Raw
	for _, tc := range []struct {
		key  string
		want float64
	}{{"redFactor", 2.5}, {"blueFactor", 7}, {"greenFactor", 7}} {
		if got := rawNumber(raw, tc.key, 7); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.key, got, tc.want)
		}
	}
}

// TestSlopeDivisor checks the metres a DEM pixel spans and GL's low-zoom
// exaggeration: at zoom 15 and above a 512-pixel tile's pixel is the
// world's 2^25.2562 m over 512*2^z, and the kernel's weights sum to 8.
func TestSlopeDivisor(t *testing.T) {
	world := math.Exp2(25.2562)
	tests := []struct {
		dim, z int
		want   float64
	}{
		{512, 15, 8 * world / (512 * math.Exp2(15))},
		{256, 16, 8 * world / (256 * math.Exp2(16))},
		{512, 12, 8 * world / (512 * math.Exp2(12)) * math.Exp2(-3*0.3)},
		{256, 4, 8 * world / (256 * math.Exp2(4)) * math.Exp2(-11*0.35)},
		{256, 1, 8 * world / (256 * math.Exp2(1)) * math.Exp2(-14*0.4)},
	}
	for _, tc := range tests {
		if got := SlopeDivisor(tc.dim, tc.z); math.Abs(got/tc.want-1) > 1e-12 {
			t.Errorf("slopeScale(%d, %d) = %v, want %v", tc.dim, tc.z, got, tc.want)
		}
	}
}
