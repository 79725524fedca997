package jsonappend

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func TestFloat(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, -1e-7, 1e-9, 1.5e-10, 1e20, 1e21, -1e21, 1.234e22,
		2566327.7016861373, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789012345678, 5e-324}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		fs = append(fs, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(80)-40)))
	}
	for _, f := range fs {
		want, _ := json.Marshal(f)
		if got := Float(nil, f); string(got) != string(want) {
			t.Errorf("Float(%v) = %s, encoding/json %s", f, got, want)
		}
	}
	for _, v := range [][]float64{nil, {}, {1.5, -2e-9}} {
		want, _ := json.Marshal(v)
		if got := Floats(nil, v); string(got) != string(want) {
			t.Errorf("Floats(%v) = %s, encoding/json %s", v, got, want)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "a<b>&c", "line\nbreak\ttab\r\x01\x1f\b\f\x7f",
		"Réseau géodésique français 1993", "\u2028\u2029", "bad \xff utf-8 \xc3", "東京 🗺"} {
		checkString(t, s)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	if got := String([]byte("x"), s); string(got) != "x"+string(want) {
		t.Fatalf("String(%q) = %s, encoding/json %s", s, got[1:], want)
	}
}

// FuzzString: any string is written as encoding/json writes it.
func FuzzString(f *testing.F) {
	f.Add("a<b>&\"c\"\n\u2028\xff")
	f.Fuzz(checkString)
}
