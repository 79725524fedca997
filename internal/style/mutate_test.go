package style

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// mutation breaks a style document in one way; it returns false when the
// style has nothing it applies to.
type mutation struct {
	name  string
	apply func(doc *Object) bool
}

func firstLayer(doc *Object, pred func(l *Object) bool) *Object {
	layers, _ := get(doc, "layers").([]any)
	for _, e := range layers {
		if l, ok := e.(*Object); ok && pred(l) {
			return l
		}
	}
	return nil
}

func layerOfType(types ...string) func(l *Object) bool {
	return func(l *Object) bool {
		t := strAt(l, "type")
		for _, want := range types {
			if t == want {
				return true
			}
		}
		return false
	}
}

func ensure(l *Object, member string) *Object {
	o, ok := get(l, member).(*Object)
	if !ok {
		o = NewObject()
		l.Set(member, o)
	}
	return o
}

var mutations = []mutation{
	{"bad-color", func(d *Object) bool {
		l := firstLayer(d, layerOfType("fill", "line", "circle", "background"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set(strAt(l, "type")+"-color", "bluish")
		return true
	}},
	{"minzoom-range", func(d *Object) bool {
		l := firstLayer(d, func(*Object) bool { return true })
		if l == nil {
			return false
		}
		l.Set("minzoom", json.Number("30"))
		return true
	}},
	{"unknown-layer-type", func(d *Object) bool {
		l := firstLayer(d, func(*Object) bool { return true })
		if l == nil {
			return false
		}
		l.Set("type", "polygon")
		return true
	}},
	{"duplicate-id", func(d *Object) bool {
		layers, _ := get(d, "layers").([]any)
		if len(layers) < 2 {
			return false
		}
		a, _ := layers[0].(*Object)
		b, _ := layers[1].(*Object)
		if a == nil || b == nil {
			return false
		}
		b.Set("id", get(a, "id"))
		return true
	}},
	{"missing-source", func(d *Object) bool {
		l := firstLayer(d, func(l *Object) bool { return strAt(l, "source") != "" })
		if l == nil {
			return false
		}
		l.Set("source", "no-such-source")
		return true
	}},
	{"version-7", func(d *Object) bool { d.Set("version", json.Number("7")); return true }},
	{"glyphs-no-range", func(d *Object) bool {
		d.Set("glyphs", "https://example.com/fonts/{fontstack}.pbf")
		return true
	}},
	{"unknown-paint-property", func(d *Object) bool {
		l := firstLayer(d, layerOfType("fill"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set("fill-colour", "red")
		return true
	}},
	{"line-width-string", func(d *Object) bool {
		l := firstLayer(d, layerOfType("line"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set("line-width", "wide")
		return true
	}},
	{"bad-visibility", func(d *Object) bool {
		l := firstLayer(d, func(*Object) bool { return true })
		if l == nil {
			return false
		}
		ensure(l, "layout").Set("visibility", "hidden")
		return true
	}},
	{"legacy-filter-arity", func(d *Object) bool {
		l := firstLayer(d, func(l *Object) bool { return strAt(l, "source") != "" })
		if l == nil {
			return false
		}
		l.Set("filter", []any{"==", "class"})
		return true
	}},
	{"expression-filter-arity", func(d *Object) bool {
		l := firstLayer(d, func(l *Object) bool { return strAt(l, "source") != "" })
		if l == nil {
			return false
		}
		l.Set("filter", []any{"==", []any{"get", "class"}})
		return true
	}},
	{"stops-descending", func(d *Object) bool {
		l := firstLayer(d, layerOfType("line"))
		if l == nil {
			return false
		}
		f := NewObject()
		f.Set("stops", []any{[]any{json.Number("10"), json.Number("1")}, []any{json.Number("5"), json.Number("2")}})
		ensure(l, "paint").Set("line-width", f)
		return true
	}},
	{"source-type", func(d *Object) bool {
		srcs, _ := get(d, "sources").(*Object)
		if srcs.Len() == 0 {
			return false
		}
		s, ok := get(srcs, srcs.keys[0]).(*Object)
		if !ok {
			return false
		}
		s.Set("type", "vectr")
		return true
	}},
	{"sprite-duplicate-ids", func(d *Object) bool {
		a, b := NewObject(), NewObject()
		a.Set("id", "x")
		a.Set("url", "https://example.com/a")
		b.Set("id", "x")
		b.Set("url", "https://example.com/b")
		d.Set("sprite", []any{a, b})
		return true
	}},
	{"bad-expression", func(d *Object) bool {
		l := firstLayer(d, layerOfType("circle", "fill", "line"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set(strAt(l, "type")+"-opacity", []any{"interpolate", []any{"linear"}, []any{"zoom"}, json.Number("5"), "a", json.Number("10"), json.Number("1")})
		return true
	}},
	{"center-length", func(d *Object) bool { d.Set("center", []any{json.Number("1")}); return true }},
	{"raster-on-vector", func(d *Object) bool {
		l := firstLayer(d, func(l *Object) bool {
			srcs, _ := get(d, "sources").(*Object)
			s, _ := get(srcs, strAt(l, "source")).(*Object)
			return strAt(s, "type") == "vector"
		})
		if l == nil {
			return false
		}
		l.Set("type", "raster")
		return true
	}},
	{"opacity-above-max", func(d *Object) bool {
		l := firstLayer(d, layerOfType("fill", "line", "circle", "background", "raster"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set(strAt(l, "type")+"-opacity", json.Number("1.5"))
		return true
	}},
	{"text-field-bad", func(d *Object) bool {
		l := firstLayer(d, layerOfType("symbol"))
		if l == nil {
			return false
		}
		ensure(l, "layout").Set("text-field", []any{"get"})
		return true
	}},
	{"missing-layers", func(d *Object) bool { d.Delete("layers"); return true }},
	{"property-function-unsupported", func(d *Object) bool {
		l := firstLayer(d, func(*Object) bool { return true })
		if l == nil {
			return false
		}
		f := NewObject()
		f.Set("property", "x")
		f.Set("stops", []any{[]any{json.Number("0"), "visible"}})
		ensure(l, "layout").Set("visibility", f)
		return true
	}},
	{"layout-in-paint", func(d *Object) bool {
		l := firstLayer(d, layerOfType("line"))
		if l == nil {
			return false
		}
		ensure(l, "paint").Set("line-cap", "round")
		return true
	}},
	{"vector-without-source-layer", func(d *Object) bool {
		l := firstLayer(d, func(l *Object) bool { return strAt(l, "source-layer") != "" })
		if l == nil {
			return false
		}
		l.Delete("source-layer")
		return true
	}},
}

// writeBrokenVariants applies every mutation to a deterministic sample of the
// fixtures (each mutation to every fourth fixture, offset by its index) and
// writes the results under dir.
func writeBrokenVariants(t *testing.T, fixtures []string, dir string) []string {
	t.Helper()
	var out []string
	for mi, m := range mutations {
		for fi := mi % 4; fi < len(fixtures); fi += 4 {
			data, err := os.ReadFile(fixtures[fi])
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(data)
			if err != nil {
				continue
			}
			doc := deepCopy(s.doc).(*Object)
			if !m.apply(doc) {
				continue
			}
			b, err := doc.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%03d.json", m.name, fi))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

// leafPool holds the replacement values of the random mutations.
var leafPool = []func() any{
	func() any { return "x" },
	func() any { return "red" },
	func() any { return "bluish" },
	func() any { return "" },
	func() any { return json.Number("-1") },
	func() any { return json.Number("0") },
	func() any { return json.Number("1.5") },
	func() any { return json.Number("1e9") },
	func() any { return true },
	func() any { return nil },
	func() any { return []any{} },
	func() any { return []any{json.Number("1"), json.Number("2")} },
	func() any { return NewObject() },
	func() any { return []any{"get", "x"} },
	func() any { return []any{"zoom"} },
	func() any {
		return []any{"interpolate", []any{"linear"}, []any{"zoom"}, json.Number("0"), json.Number("1"), json.Number("10"), json.Number("2")}
	},
	func() any { return []any{"step", []any{"zoom"}, "a", json.Number("5"), "b"} },
	func() any { return []any{"==", "class", "x"} },
	func() any { return []any{"feature-state", "x"} },
	func() any { return []any{"no-such-op"} },
	func() any {
		f := NewObject()
		f.Set("stops", []any{[]any{json.Number("0"), json.Number("1")}})
		return f
	},
	func() any {
		f := NewObject()
		f.Set("property", "p")
		f.Set("type", "categorical")
		f.Set("stops", []any{[]any{"a", "red"}})
		return f
	},
}

type slot struct {
	parent any // *Object or []any
	key    string
	index  int
}

func collectSlots(v any, out *[]slot, depth int) {
	if depth > 12 {
		return
	}
	switch t := v.(type) {
	case *Object:
		for _, k := range t.keys {
			*out = append(*out, slot{parent: t, key: k})
			collectSlots(t.vals[k], out, depth+1)
		}
	case []any:
		for i, e := range t {
			*out = append(*out, slot{parent: t, index: i})
			collectSlots(e, out, depth+1)
		}
	}
}

// writeRandomVariants replaces one random value (or member name) of n
// fixtures with a value from leafPool, with a fixed seed.
func writeRandomVariants(t *testing.T, fixtures []string, dir string, n int) []string {
	t.Helper()
	rng := uint64(0x9E3779B97F4A7C15)
	next := func(m int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(m))
	}
	var out []string
	for i := 0; i < n; i++ {
		data, err := os.ReadFile(fixtures[next(len(fixtures))])
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(data)
		if err != nil {
			continue
		}
		doc := deepCopy(s.doc).(*Object)
		var slots []slot
		collectSlots(doc, &slots, 0)
		if len(slots) == 0 {
			continue
		}
		sl := slots[next(len(slots))]
		val := leafPool[next(len(leafPool))]()
		switch p := sl.parent.(type) {
		case *Object:
			if next(8) == 0 { // rename the member instead
				old := p.vals[sl.key]
				p.Delete(sl.key)
				p.Set(sl.key+"-x", old)
			} else {
				p.Set(sl.key, val)
			}
		case []any:
			p[sl.index] = val
		}
		b, err := doc.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("random-%04d.json", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
