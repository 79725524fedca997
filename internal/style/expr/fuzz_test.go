package expr

import (
	"encoding/json"
	"testing"
)

func FuzzCompile(f *testing.F) {
	seeds := []string{
		`["interpolate", ["linear"], ["get", "x"], 0, 0, 100, 10]`,
		`["match", ["get", "x"], ["a", "b"], 1, 2]`,
		`["let", "a", 1, ["+", ["var", "a"], 2]]`,
		`["format", "a", {"font-scale": 2}, ["image", "x"], {}]`,
		`["within", {"type": "Polygon", "coordinates": [[[0,0],[0,5],[5,5],[0,0]]]}]`,
		`["distance", {"type": "Point", "coordinates": [3,3]}]`,
		`{"stops": [[0, 1], [10, 2]], "base": 2}`,
		`{"property": "p", "type": "categorical", "stops": [["a", "red"]], "default": "blue"}`,
		`{"property": "p", "type": "interval", "stops": [[{"zoom": 0, "value": 1}, "{a} b"], [{"zoom": 2, "value": 1}, [1, 2]]]}`,
		`{"type": "identity", "property": "p", "default": [1]}`,
		`{"type": "categorical", "property": "p", "stops": [[true, 1], [0.5, 2], ["x", 3]]}`,
		`["number-format", 12.5, {"locale": "de", "min-fraction-digits": 2}]`,
		`["==", "a", "b", ["collator", {"case-sensitive": true}]]`,
		`["all", ["all", ["all", ["all", ["all", 1]]]]]`,
		`"rgba(10, 20, 30, 0.5)"`,
		`["step", ["zoom"], 0, 1, ["to-color", ["get", "c"]]]`,
		`[[[[[[[[[[]]]]]]]]]]`,
		`["all", ["==", "class", "street"], ["!in", "$type", "Point"], ["!has", "name"]]`,
		`["Open Sans Regular", "Arial Unicode MS Regular"]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	specs := []*PropertySpec{nil, numberSpec, colorSpec,
		{Type: "string", PropertyType: "data-driven", Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}},
		{Type: "formatted", PropertyType: "data-driven", Expression: &ExpressionSupport{Parameters: []string{"zoom", "feature"}}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 || !json.Valid(data) {
			return
		}
		ctx := &EvalContext{Zoom: 3, Feature: benchFeature(), Canonical: &TileID{Z: 3, X: 4, Y: 3}}
		if e, errs := CompileFilter(json.RawMessage(data)); len(errs) == 0 {
			_, _ = e.EvalBool(ctx)
		}
		for _, spec := range specs {
			if e, errs := CompileValue(json.RawMessage(data), spec); len(errs) == 0 {
				_, _ = e.Eval(ctx)
			}
			e, errs := Compile(json.RawMessage(data), spec)
			if len(errs) > 0 {
				if e != nil {
					t.Fatal("errors with an expression")
				}
				continue
			}
			_, _ = e.Eval(ctx)
		}
	})
}
