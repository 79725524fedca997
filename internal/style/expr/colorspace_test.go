package expr

import (
	"math"
	"testing"
)

// TestLabSpaceMatrix checks the derived linear-sRGB -> XYZ (D50) matrix
// against the published one (Lindbloom's sRGB/Bradford table).
func TestLabSpaceMatrix(t *testing.T) {
	want := mat3{
		{0.4360747, 0.3850649, 0.1430804},
		{0.2225045, 0.7168786, 0.0606169},
		{0.0139322, 0.0971045, 0.7141733},
	}
	for i := range want {
		for j := range want[i] {
			if d := math.Abs(labSpace.toXYZ[i][j] - want[i][j]); d > 1e-6 {
				t.Errorf("toXYZ[%d][%d] = %.7f, want %.7f", i, j, labSpace.toXYZ[i][j], want[i][j])
			}
		}
	}
	id := labSpace.toXYZ.times(labSpace.fromXYZ)
	for i := range id {
		for j := range id[i] {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(id[i][j]-want) > 1e-12 {
				t.Fatalf("toXYZ * fromXYZ = %v, not the identity", id)
			}
		}
	}
}

// TestLabRoundTrip checks colors taken to Lab and back, with the outputs
// observed from the reference implementation for channels whose linear
// value falls between 0.00304 and 0.0031308 (they come back changed).
func TestLabRoundTrip(t *testing.T) {
	tests := []struct {
		in   [3]float64 // 0..255
		want [3]float64
	}{
		{[3]float64{10, 10, 10}, [3]float64{10, 10, 10}},
		{[3]float64{10.1, 10.1, 10.1}, [3]float64{10.1023013, 10.1023019, 10.1023021}},
		{[3]float64{10.2, 10.2, 10.2}, [3]float64{10.2015505, 10.2015510, 10.2015512}},
		{[3]float64{10.3, 10.3, 10.3}, [3]float64{10.3002336, 10.3002342, 10.3002343}},
		{[3]float64{10.4, 10.4, 10.4}, [3]float64{10.4, 10.4, 10.4}},
		{[3]float64{10.1, 0, 0}, [3]float64{10.1023008, 0, 0}},
		{[3]float64{255, 0, 0}, [3]float64{255, 0, 0}},
		{[3]float64{0, 0, 255}, [3]float64{0, 0, 255}},
	}
	for _, tt := range tests {
		c := Color{tt.in[0] / 255, tt.in[1] / 255, tt.in[2] / 255, 1}
		got := fromLab(toLab(c), 1)
		for i, g := range [3]float64{got.R, got.G, got.B} {
			if math.Abs(g*255-tt.want[i]) > 2e-5 {
				t.Errorf("%v: channel %d = %.7f, want %.7f", tt.in, i, g*255, tt.want[i])
			}
		}
	}
}

func TestToPolar(t *testing.T) {
	tests := []struct {
		lab     labColor
		hue     float64
		hueless bool
	}{
		{labColor{50, 10, 0}, 0, false},
		{labColor{50, 0, 10}, 90, false},
		{labColor{50, -10, 0}, 180, false},
		{labColor{50, 0, -10}, 270, false},
		{labColor{50, 0.00004, 0}, 0, true},
		{labColor{0, 0, 0}, 0, true},
	}
	for _, tt := range tests {
		p := toPolar(tt.lab)
		if p.hueless != tt.hueless || (!p.hueless && math.Abs(p.hue-tt.hue) > 1e-9) {
			t.Errorf("toPolar(%v) = %+v, want hue %g hueless %v", tt.lab, p, tt.hue, tt.hueless)
		}
	}
}

func TestMixPolar(t *testing.T) {
	tests := []struct {
		name string
		p, q polarLab
		t    float64
		want polarLab
	}{
		{"short way up", polarLab{hue: 10, chroma: 20, l: 50}, polarLab{hue: 50, chroma: 40, l: 70}, 0.5, polarLab{hue: 30, chroma: 30, l: 60}},
		{"short way across 0", polarLab{hue: 350, chroma: 20, l: 50}, polarLab{hue: 30, chroma: 20, l: 50}, 0.5, polarLab{hue: 370, chroma: 20, l: 50}},
		{"short way down across 0", polarLab{hue: 30, chroma: 20, l: 50}, polarLab{hue: 350, chroma: 20, l: 50}, 0.5, polarLab{hue: 10, chroma: 20, l: 50}},
		{"hueless end takes the hue", polarLab{hue: 120, chroma: 40, l: 50}, polarLab{hueless: true, l: 30}, 0.5, polarLab{hue: 120, chroma: 20, l: 40}},
		{"black end keeps the chroma", polarLab{hue: 120, chroma: 40, l: 50}, polarLab{hueless: true, l: 0}, 0.5, polarLab{hue: 120, chroma: 40, l: 25}},
		{"first end hueless", polarLab{hueless: true, l: 1}, polarLab{hue: 200, chroma: 10, l: 51}, 0.5, polarLab{hue: 200, chroma: 10, l: 26}},
		{"both hueless", polarLab{hueless: true, chroma: 0.00001, l: 20}, polarLab{hueless: true, l: 40}, 0.5, polarLab{hueless: true, chroma: 0.000005, l: 30}},
	}
	for _, tt := range tests {
		got := mixPolar(tt.p, tt.q, tt.t)
		if got.hueless != tt.want.hueless || math.Abs(got.hue-tt.want.hue) > 1e-9 ||
			math.Abs(got.chroma-tt.want.chroma) > 1e-9 || math.Abs(got.l-tt.want.l) > 1e-9 {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
