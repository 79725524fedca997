package style

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// TestDecodeSpecJSON holds decodeSpecJSON to decodeJSON's reading.
func TestDecodeSpecJSON(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{"the embedded specification", string(embeddedSpec), true},
		{"scalars", `[1, -0.5e+3, 0, 1E2, "a", true, false, null]`, true},
		{"nested, keys in order", ` {"b": {"y": [], "x": {}}, "a": [[1], {"c": null}]} `, true},
		{"duplicate keys keep the first place", `{"a": 1, "b": 2, "a": 3}`, true},
		{"escapes and unicode", `{"q\"k": "tab\tnew\nline \u00e9 \ud83d\ude00 é", "k": "\/\\"}`, true},
		{"invalid utf-8 and a lone surrogate", "[\"a\xffb\", \"\\ud800\"]", true},
		{"empty", ``, false},
		{"trailing data", `{} {}`, false},
		{"trailing comma", `[1, 2,]`, false},
		{"unclosed object", `{"a": 1`, false},
		{"missing colon", `{"a" 1}`, false},
		{"key not a string", `{1: 2}`, false},
		{"leading zero", `[01]`, false},
		{"bare dot", `[1.]`, false},
		{"bad literal", `[tru]`, false},
		{"control character in a string", "[\"a\x01\"]", false},
		{"unterminated string", `["abc`, false},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), false},
	}
	for _, tc := range tests {
		want, werr := decodeJSON([]byte(tc.doc))
		got, gerr := decodeSpecJSON([]byte(tc.doc))
		if (werr == nil) != tc.ok || (gerr == nil) != tc.ok {
			t.Errorf("%s: decodeJSON error %v, decodeSpecJSON error %v; want ok=%v", tc.name, werr, gerr, tc.ok)
			continue
		}
		if tc.ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeSpecJSON read\n%#v\nwant\n%#v", tc.name, got, want)
		}
	}
}

func FuzzDecodeSpecJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x", {"b": null}]}`, `[true, false, -1.5e3]`, `"\u00e9\n"`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := decodeJSON(data)
		got, gerr := decodeSpecJSON(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("decodeJSON error %v, decodeSpecJSON error %v", werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeSpecJSON read %#v, want %#v", got, want)
		}
	})
}

func BenchmarkDefaultSpecDecode(b *testing.B) {
	b.Run("decodeJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeJSON(embeddedSpec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeSpecJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeSpecJSON(embeddedSpec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPropertySpecs holds the property specs read from the decoded
// specification to those expr.PropertySpecs reads from its JSON, property
// by property (defaults compared as JSON values).
func TestPropertySpecs(t *testing.T) {
	want, err := expr.PropertySpecs(SpecJSON())
	if err != nil {
		t.Fatal(err)
	}
	got := DefaultSpec().PropertySpecs()
	if len(got) != len(want) || len(got) < 20 {
		t.Fatalf("%d sections, want %d", len(got), len(want))
	}
	n := 0
	for section, props := range want {
		if len(got[section]) != len(props) {
			t.Errorf("%s: %d properties, want %d", section, len(got[section]), len(props))
		}
		for name, w := range props {
			g := got[section][name]
			if g == nil {
				t.Errorf("%s.%s missing", section, name)
				continue
			}
			n++
			gd, wd := *g, *w
			gd.Default, wd.Default = nil, nil
			if !reflect.DeepEqual(gd, wd) {
				t.Errorf("%s.%s: %+v, want %+v", section, name, gd, wd)
			}
			var gv, wv any
			if (len(g.Default) > 0) != (len(w.Default) > 0) {
				t.Errorf("%s.%s: default %s, want %s", section, name, g.Default, w.Default)
				continue
			}
			if len(w.Default) > 0 {
				if json.Unmarshal(g.Default, &gv) != nil || json.Unmarshal(w.Default, &wv) != nil || !reflect.DeepEqual(gv, wv) {
					t.Errorf("%s.%s: default %s, want %s", section, name, g.Default, w.Default)
				}
			}
		}
	}
	if n < 140 { // the embedded specification has 144
		t.Errorf("only %d properties compared", n)
	}

	// The light's, read alone.
	var root struct {
		Light map[string]*expr.PropertySpec `json:"light"`
	}
	if err := json.Unmarshal(SpecJSON(), &root); err != nil {
		t.Fatal(err)
	}
	light := DefaultSpec().SectionSpecs("light")
	if len(light) != len(root.Light) || len(light) < 4 {
		t.Fatalf("light: %d properties, want %d", len(light), len(root.Light))
	}
	for name, w := range root.Light {
		g := light[name]
		if g == nil {
			t.Errorf("light.%s missing", name)
			continue
		}
		var gv, wv any
		json.Unmarshal(g.Default, &gv)
		json.Unmarshal(w.Default, &wv)
		gd, wd := *g, *w
		gd.Default, wd.Default = nil, nil
		if !reflect.DeepEqual(gd, wd) || !reflect.DeepEqual(gv, wv) {
			t.Errorf("light.%s: %+v, want %+v", name, g, w)
		}
	}
}

func BenchmarkPropertySpecs(b *testing.B) {
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			expr.PropertySpecs(SpecJSON())
		}
	})
	b.Run("decoded", func(b *testing.B) {
		sp := DefaultSpec()
		for b.Loop() {
			sp.allPropsOnce = sync.Once{}
			sp.PropertySpecs()
		}
	})
}
