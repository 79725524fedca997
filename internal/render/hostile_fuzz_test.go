package render

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// extremes are the numbers a generated hostile style gives its numeric
// properties.
var extremes = []float64{0, 1, -1, 0.5, 1e-9, 3, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9, 1e15, 1e300, -1e9, -1e300, 2e-300, 255}

// fuzzBytes reads a fuzz input a byte at a time, 0 once it is used up
// (every property then keeps its default).
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() int {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return int(f.b[f.i-1])
}

// number returns a number from extremes, written as a literal or, when
// the byte's high bit is set, as an expression (["+", 0, n]), which the
// style checker does not hold to the property's range; ok is false for
// none (byte 0).
func (f *fuzzBytes) number() (v any, ok bool) {
	k := f.next()
	if k == 0 {
		return nil, false
	}
	n := extremes[(k&0x7f)%len(extremes)]
	if k&0x80 != 0 {
		return []any{"+", 0, n}, true
	}
	return n, true
}

// numbers returns an array of n numbers from extremes (n from the input
// when 0: up to 64 for a dash array), as a literal or in a literal
// expression.
func (f *fuzzBytes) numbers(n int) (any, bool) {
	k := f.next()
	if k == 0 {
		return nil, false
	}
	if n == 0 {
		n = 1 + f.next()%64
	}
	out := make([]any, n)
	for i := range out {
		out[i] = extremes[f.next()%len(extremes)]
	}
	if k&0x80 != 0 {
		return []any{"literal", out}, true
	}
	return out, true
}

// hostileStyleFrom builds a style from a fuzz input: up to four layers of
// any drawn type over generated lines, points or squares (hostileResources),
// each paint and layout property from the input (numbers from extremes,
// dash arrays up to 64 long, patterns and icons from the test sprite,
// text in the test font), and a view (zoom, pitch, bearing) from it too.
func hostileStyleFrom(specs map[string]map[string]*expr.PropertySpec, data []byte) (*style.Style, View, error) {
	in := &fuzzBytes{b: data}
	zooms := []float64{14, 3, 0, 22, 16.5, 8}
	zoom := zooms[in.next()%len(zooms)]
	doc := map[string]any{
		"version": 8, "center": []float64{13.4, 52.5}, "zoom": zoom,
		"pitch": float64(in.next() % 61), "bearing": float64(in.next() % 360),
		"glyphs": "local://glyphs/{fontstack}/{range}.pbf", "sprite": "local://sprite/emerald",
		"sources": map[string]any{
			"lines":   map[string]any{"type": "geojson", "data": "hostile://lines?lon=13.4&lat=52.5&span=0.04&n=40&v=30"},
			"points":  map[string]any{"type": "geojson", "data": "hostile://points?lon=13.4&lat=52.5&span=0.04&n=300"},
			"squares": map[string]any{"type": "geojson", "data": "hostile://squares?lon=13.4&lat=52.5&span=0.04&n=300"},
		},
	}
	types := []string{"line", "fill", "circle", "symbol", "heatmap", "fill-extrusion", "background"}
	sourceOf := map[string][]string{"line": {"lines", "squares"}, "fill": {"squares"}, "circle": {"points", "lines"},
		"symbol": {"points", "lines"}, "heatmap": {"points", "lines"}, "fill-extrusion": {"squares"}}
	images := []string{"sand_noise", "interstate_1", "grass_noise"}
	colors := []string{"red", "rgba(0, 0, 255, 0.5)", "transparent", "#fff"}
	var layers []any
	for i := range 1 + in.next()%4 {
		typ := types[in.next()%len(types)]
		layer := map[string]any{"id": "l" + string(rune('0'+i)), "type": typ}
		if srcs := sourceOf[typ]; srcs != nil {
			layer["source"] = srcs[in.next()%len(srcs)]
		}
		for _, kind := range []string{"paint", "layout"} {
			props := map[string]any{}
			group := specs[kind+"_"+typ]
			names := make([]string, 0, len(group))
			for name := range group {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				if name == "visibility" {
					continue // a layer left out is no test
				}
				spec := group[name]
				var v any
				ok := false
				switch {
				case spec.Type == "number":
					v, ok = in.number()
					if e, expression := v.([]any); expression && spec.Expression == nil {
						v = e[2] // the property takes no expression
					}
				case spec.Type == "array" && spec.Value == "number":
					v, ok = in.numbers(spec.Length)
				case spec.Type == "padding":
					v, ok = in.numbers(1 + in.next()%4)
				case spec.Type == "enum" && len(spec.Values) > 0:
					if k := in.next(); k != 0 {
						v, ok = spec.Values[k%len(spec.Values)], true
					}
				case spec.Type == "boolean":
					if k := in.next() % 3; k != 0 {
						v, ok = k == 1, true
					}
				case spec.Type == "color" && spec.PropertyType != "color-ramp":
					if k := in.next(); k != 0 {
						v, ok = colors[k%len(colors)], true
					}
				case spec.Type == "resolvedImage":
					if k := in.next(); k != 0 {
						v, ok = images[k%len(images)], true
					}
				case name == "text-field":
					if k := in.next(); k != 0 {
						v, ok = "Hostile text", true
						props["text-font"] = []string{"Open Sans Semibold", "Arial Unicode MS Bold"}
					}
				}
				if ok {
					props[name] = v
				}
			}
			if len(props) > 0 {
				layer[kind] = props
			}
		}
		layers = append(layers, layer)
	}
	doc["layers"] = layers
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, View{}, err
	}
	st, err := style.Parse(raw)
	if err != nil {
		return nil, View{}, err
	}
	if errs := style.Validate(st, style.DefaultSpec()); len(errs) > 0 {
		return nil, View{}, errs[0]
	}
	v := ViewOf(st, 256, 256, float64(1+in.next()%2))
	return st, v, nil
}

// hostileDeadline is the deadline of a render of FuzzHostileStyle.
const hostileDeadline = 250 * time.Millisecond

// FuzzHostileStyle draws generated hostile styles (every numeric paint
// and layout property over extreme ranges, with patterns, dashes and
// text; hostileStyleFrom) under a short deadline: each ends with a
// picture, ErrWorkBound or its deadline's error, within a second after
// its deadline, allocating less than hostileAlloc.
func FuzzHostileStyle(f *testing.F) {
	// Seeds: every property of one layer of each type at one of a few
	// extremes (1e5, 1e9, 1e-9, -1e9, as expressions), and inputs of
	// random bytes.
	for _, k := range []byte{0x8a, 0x8c, 0x84, 0x8f} {
		for _, layer := range []byte{0, 1, 2, 3, 4, 5} {
			seed := []byte{0, 0, 0, 0, layer}
			for range 400 {
				seed = append(seed, k)
			}
			f.Add(seed)
		}
	}
	rng := rand.New(rand.NewPCG(17, 17))
	for range 4 {
		seed := make([]byte, 600)
		for i := range seed {
			seed[i] = byte(rng.IntN(256))
		}
		f.Add(seed)
	}
	r := newRenderer(f)
	specs := style.DefaultSpec().PropertySpecs()
	f.Fuzz(func(t *testing.T, data []byte) {
		st, v, err := hostileStyleFrom(specs, data)
		if err != nil {
			return // a style the checker refuses is never drawn
		}
		ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
		defer cancel()
		err = hostileRender(t, r, ctx, st, v)
		t.Logf("%v", err)
	})
}
