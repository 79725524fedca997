package render

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"testing"
)

// encodeElevation packs metres into red, green and blue by an encoding's
// own rule (the inverse of what the renderer decodes).
func encodeElevation(t testing.TB, enc string, e float64) [3]uint8 {
	t.Helper()
	switch enc {
	case "mapbox":
		v := int(math.Round((e + 10000) * 10))
		return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
	case "terrarium":
		v := e + 32768
		return [3]uint8{uint8(int(v) / 256), uint8(int(v) % 256), uint8(math.Floor((v - math.Floor(v)) * 256))}
	case "custom":
		// The test's custom encoding: r*100 + g + b/100 - 500.
		v := e + 500
		r := math.Floor(v / 100)
		g := math.Floor(v - 100*r)
		b := math.Round((v - 100*r - g) * 100)
		return [3]uint8{uint8(r), uint8(g), uint8(b)}
	}
	t.Fatalf("no encoding %q", enc)
	return [3]uint8{}
}

// demPNG encodes a dim x dim DEM tile whose pixel x, y has elevation
// elev(x, y).
func demPNG(t testing.TB, enc string, dim int, elev func(x, y int) float64) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, dim, dim))
	for y := 0; y < dim; y++ {
		for x := 0; x < dim; x++ {
			c := encodeElevation(t, enc, elev(x, y))
			o := img.PixOffset(x, y)
			copy(img.Pix[o:], []uint8{c[0], c[1], c[2], 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

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
			st := parse(t, `{"version": 8, "sources": {"d": `+tc.source+`}, "layers": []}`)
			enc, err := encodingOf(st.SourceByKey["d"])
			if err != nil {
				t.Fatal(err)
			}
			d, err := decodeDEM(demPNG(t, tc.enc, 16, cone), enc)
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
		st := parse(t, `{"version": 8, "sources": {"d": `+src+`}, "layers": []}`)
		if _, err := encodingOf(st.SourceByKey["d"]); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
	// A custom encoding without factors takes 1, 1, 1 and 0.
	st := parse(t, `{"version": 8, "sources": {"d": {"type": "raster-dem", "tiles": ["x"], "encoding": "custom"}}, "layers": []}`)
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
	tile := func(col, row int) *demTile {
		d, err := decodeDEM(demPNG(t, "terrarium", dim, plane(col, row)), terrariumEncoding)
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
	c := &demCover{z: 3, tiles: map[[2]int]*demTile{}}
	for row := 0; row < 3; row++ {
		for col := 0; col < 3; col++ {
			c.tiles[[2]int{col, row}] = tile(col, row)
		}
	}
	c.backfillAll()
	mid := c.tiles[[2]int{1, 1}]
	for y := -demBorder; y < dim+demBorder; y++ {
		for x := -demBorder; x < dim+demBorder; x++ {
			if got, want := mid.at(x, y), plane(1, 1)(x, y); got != want {
				t.Fatalf("backfilled, pixel %d,%d = %v, want %v", x, y, got, want)
			}
		}
	}
	// Across the antimeridian: column 0's western border is column 7's
	// east edge.
	w := &demCover{z: 3, tiles: map[[2]int]*demTile{{0, 1}: tile(0, 1), {7, 1}: tile(7, 1)}}
	w.backfillAll()
	if got, want := w.tiles[[2]int{0, 1}].at(-1, 2), plane(7, 1)(dim-1, 2); got != want {
		t.Errorf("across the antimeridian, border = %v, want %v", got, want)
	}
}

func TestSourceNumbers(t *testing.T) {
	st := parse(t, `{"version": 8, "sources": {"d": {"type": "raster-dem", "tiles": ["x"], "redFactor": 2.5, "blueFactor": "x"}}, "layers": []}`)
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
