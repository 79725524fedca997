package csscolor

import "testing"

func TestNamed(t *testing.T) {
	// CSS Color Level 4 has 148 named colors (grey and gray spellings
	// counted separately), "transparent" aside.
	if len(Named) != 148 {
		t.Errorf("%d named colors, want 148", len(Named))
	}
	for name, want := range map[string]uint32{"rebeccapurple": 0x663399, "red": 0xff0000, "darkslategrey": 0x2f4f4f, "aliceblue": 0xf0f8ff} {
		if got, ok := Named[name]; !ok || got != want {
			t.Errorf("Named[%q] = %06x, %v; want %06x", name, got, ok, want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		r, g, b, a float64
		ok         bool
	}{
		{"red", 1, 0, 0, 1, true},
		{"  Transparent ", 0, 0, 0, 0, true},
		{"#f00", 1, 0, 0, 1, true},
		{"#ff000080", 1, 0, 0, 128.0 / 255, true},
		{"#0f08", 0, 1, 0, 136.0 / 255, true},
		{"rgb(255, 0, 0)", 1, 0, 0, 1, true},
		{"rgba(0,0,255,0.5)", 0, 0, 1, 0.5, true},
		{"rgb(0 255 0 / 50%)", 0, 1, 0, 0.5, true},
		{"rgb(100%, 0%, 0%)", 1, 0, 0, 1, true},
		{"hsl(120, 100%, 50%)", 0, 1, 0, 1, true},
		{"hsl(240deg 100% 50%)", 0, 0, 1, 1, true},
		{"rgb(10%, 0, 0)", 0, 0, 0, 0, false}, // legacy syntax may not mix
		{"#ggg", 0, 0, 0, 0, false},
		{"#12345", 0, 0, 0, 0, false},
		{"rgb(1,2)", 0, 0, 0, 0, false},
		{"bluish", 0, 0, 0, 0, false},
		{"", 0, 0, 0, 0, false},
	}
	for _, tc := range tests {
		r, g, b, a, ok := Parse(tc.in)
		if ok != tc.ok {
			t.Errorf("Parse(%q) ok = %v", tc.in, ok)
			continue
		}
		if !ok {
			continue
		}
		for i, pair := range [][2]float64{{r, tc.r}, {g, tc.g}, {b, tc.b}, {a, tc.a}} {
			if d := pair[0] - pair[1]; d > 1e-9 || d < -1e-9 {
				t.Errorf("Parse(%q) component %d = %v, want %v", tc.in, i, pair[0], pair[1])
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"#fff", "#12345678", "rgb(1,2,3)", "rgba(1 2 3 / 50%)", "hsl(-720deg, 50%, 50%)", "RED", "transparent"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, g, b, a, ok := Parse(s)
		for _, v := range []float64{r, g, b, a} {
			if ok && !(v >= 0 && v <= 1) {
				t.Fatalf("%q: component out of range: %v %v %v %v", s, r, g, b, a)
			}
		}
	})
}
