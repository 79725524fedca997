package style

import (
	"reflect"
	"strings"
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

// TestPropertySpecJSON holds the property specs read from
// PropertySpecJSON to those read from the whole specification.
func TestPropertySpecJSON(t *testing.T) {
	want, err := expr.PropertySpecs(SpecJSON())
	if err != nil {
		t.Fatal(err)
	}
	got, err := expr.PropertySpecs(PropertySpecJSON())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the property specs differ")
	}
	if n, whole := len(PropertySpecJSON()), len(SpecJSON()); n > whole/3 {
		t.Errorf("PropertySpecJSON has %d bytes of %d", n, whole)
	}
	for w, want := range map[string]bool{`"paint_line"`: true, `"layout_symbol"`: true, `"doc"`: false, `"sdk-support"`: false, `"expression_name"`: false} {
		if has := strings.Contains(string(PropertySpecJSON()), w); has != want {
			t.Errorf("PropertySpecJSON contains %s: %v, want %v", w, has, want)
		}
	}
}

func TestPropertySections(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"paint_a": {"p": {"doc": "x", "type": "number", "default": [0, 0]}}, "other": {"doc": 1}}`,
			`{"paint_a":{"p":{"type":"number","default":[0, 0]}}}`},
		{`{"layout_b": {"p": {"values": {"v": {"doc": "d"}}, "sdk-support": {"a": [1]}, "example": {}}}, "paint_c": {}}`,
			`{"layout_b":{"p":{"values":{"v":{}}}},"paint_c":{}}`},
		{`{"x": "\"}", "paint_q\"": {"s": "a\"b", "n": -1.5e2, "t": true}}`, `{"paint_q\"":{"s":"a\"b","n":-1.5e2,"t":true}}`},
		{`{}`, `{}`},
	}
	for _, tc := range tests {
		got, err := propertySections(tc.doc)
		if err != nil || string(got) != tc.want {
			t.Errorf("propertySections(%s) = %s, %v; want %s", tc.doc, got, err, tc.want)
		}
	}
}

func BenchmarkPropertySpecs(b *testing.B) {
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			expr.PropertySpecs(SpecJSON())
		}
	})
	b.Run("sections", func(b *testing.B) {
		for b.Loop() {
			b, _ := propertySections(string(embeddedSpec))
			expr.PropertySpecs(b)
		}
	})
}
