package expr

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"
	"time"
)

func TestParseColor(t *testing.T) {
	tests := []struct {
		in   string
		want Color
		ok   bool
	}{
		{"red", Color{1, 0, 0, 1}, true},
		{"  RebeccaPurple ", Color{0x66 / 255.0, 0x33 / 255.0, 0x99 / 255.0, 1}, true},
		{"transparent", Color{}, true},
		{"#f00", Color{1, 0, 0, 1}, true},
		{"#f008", Color{1, 0, 0, 0x88 / 255.0}, true},
		{"#00ff00", Color{0, 1, 0, 1}, true},
		{"#0000ff80", Color{0, 0, 1, 128 / 255.0}, true},
		{"rgb(255, 0, 0)", Color{1, 0, 0, 1}, true},
		{"rgba(0, 255, 0, 0.5)", Color{0, 1, 0, 0.5}, true},
		{"rgb(0% 0% 100% / 0)", Color{0, 0, 1, 0}, true},
		{"rgb(0 0 255 / 50%)", Color{0, 0, 1, 0.5}, true},
		{"hsl(120, 100%, 50%)", Color{0, 1, 0, 1}, true},
		{"hsl(240 100% 50% / 0)", Color{0, 0, 1, 0}, true},
		{"hsla(0, 100%, 50%, 0.25)", Color{1, 0, 0, 0.25}, true},
		{"rgb(300, -5, 0)", Color{1, 0, 0, 1}, true},
		{"rgb(10%, 0, 0)", Color{}, false},
		{"#ggg", Color{}, false},
		{"#12345", Color{}, false},
		{"oops blue", Color{}, false},
		{"rgb(1, 2)", Color{}, false},
		{"", Color{}, false},
		{"__proto__", Color{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseColor(tt.in)
		if ok != tt.ok {
			t.Errorf("ParseColor(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok && (math.Abs(got.R-tt.want.R) > 1e-9 || math.Abs(got.G-tt.want.G) > 1e-9 || math.Abs(got.B-tt.want.B) > 1e-9 || math.Abs(got.A-tt.want.A) > 1e-9) {
			t.Errorf("ParseColor(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestJSNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-2.5, "-2.5"}, {0.30000000000000004, "0.30000000000000004"},
		{1e21, "1e+21"}, {123456789012345680000, "123456789012345680000"}, {1e-7, "1e-7"},
		{0.000001, "0.000001"}, {6.02e-23, "6.02e-23"}, {math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
		{1.5e300, "1.5e+300"},
	}
	for _, tt := range tests {
		if got := jsNumber(tt.in); got != tt.want {
			t.Errorf("jsNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		x    float64
		o    numberFormatOptions
		want string
	}{
		{123456.789, numberFormatOptions{minFrac: -1, maxFrac: -1}, "123,456.789"},
		{0.5, numberFormatOptions{minFrac: -1, maxFrac: 0}, "1"},
		{-1234.5, numberFormatOptions{locale: "de-DE", minFrac: 2, maxFrac: -1}, "-1.234,50"},
		{1234.5, numberFormatOptions{locale: "fr", minFrac: -1, maxFrac: -1}, "1\u202f234,5"},
		{999.9996, numberFormatOptions{minFrac: -1, maxFrac: 3}, "1,000"},
		{12.5, numberFormatOptions{currency: "USD", minFrac: -1, maxFrac: -1}, "$12.50"},
		{12.5, numberFormatOptions{locale: "de", currency: "EUR", minFrac: -1, maxFrac: -1}, "12,50\u00a0€"},
		{3, numberFormatOptions{unit: "kilometer", minFrac: -1, maxFrac: -1}, "3 km"},
	}
	for _, tt := range tests {
		got, err := formatNumber(tt.x, tt.o)
		if err != nil || got != tt.want {
			t.Errorf("formatNumber(%v, %+v) = %q, %v; want %q", tt.x, tt.o, got, err, tt.want)
		}
	}
	if _, err := formatNumber(1, numberFormatOptions{minFrac: 3, maxFrac: 1}); err == nil {
		t.Error("min > max fraction digits: want error")
	}
	if _, err := formatNumber(1, numberFormatOptions{unit: "parsec", minFrac: -1, maxFrac: -1}); err == nil {
		t.Error("unknown unit: want error")
	}
}

func TestCollator(t *testing.T) {
	tests := []struct {
		cs, ds bool
		locale string
		a, b   string
		want   int
	}{
		{false, false, "en", "a", "A", 0},
		{false, false, "en", "a", "ä", 0},
		{true, false, "en", "a", "ä", 0},
		{true, false, "en", "a", "A", -1},
		{false, true, "en", "a", "ä", -1},
		{false, true, "en", "A", "a", 0},
		{true, true, "en", "a", "A", -1},
		{false, false, "sv", "ä", "z", 1},
		{false, false, "de", "ä", "ae", 0},
	}
	for _, tt := range tests {
		c := NewCollator(tt.cs, tt.ds, tt.locale)
		if got := c.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Collator(%v,%v,%q).Compare(%q,%q) = %d, want %d", tt.cs, tt.ds, tt.locale, tt.a, tt.b, got, tt.want)
		}
	}
	if got := NewCollator(false, false, "xx-invalid-").ResolvedLocale(); got != defaultLocale {
		t.Errorf("invalid locale resolves to %q, want %q", got, defaultLocale)
	}
}

func TestTypeString(t *testing.T) {
	tests := []struct {
		t    Type
		want string
	}{
		{NumberType, "number"},
		{ArrayOf(ValueType, -1), "array"},
		{ArrayOf(StringType, 2), "array<string, 2>"},
		{ArrayOf(NumberType, -1), "array<number>"},
		{ArrayOf(ValueType, 0), "array<value, 0>"},
		{ColorArrType, "colorArray"},
		{typeOfValue(Array([]Value{Number(1), String("a")})), "array<value, 2>"},
		{typeOfValue(Array([]Value{Array(nil), Array(nil)})), "array<value, 2>"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func mustCompile(t *testing.T, src string, spec *PropertySpec) *Expression {
	t.Helper()
	e, errs := Compile([]byte(src), spec)
	if len(errs) > 0 {
		t.Fatalf("Compile(%s): %v", src, errs)
	}
	return e
}

func TestEvalCases(t *testing.T) {
	props := &Object{}
	props.Set("name", String("Zürich"))
	props.Set("pop", Number(415000))
	props.Set("tags", Array([]Value{String("a"), String("b")}))
	feat := &MapFeature{Props: props, Id: Number(3), Type: "Point"}
	tests := []struct {
		src  string
		spec *PropertySpec
		want string
	}{
		{`["upcase", ["get", "name"]]`, nil, `"ZÜRICH"`},
		{`["length", ["get", "name"]]`, nil, `6`},
		{`["slice", ["get", "name"], 1, 3]`, nil, `"ür"`},
		{`["index-of", "ich", ["get", "name"]]`, nil, `3`},
		{`["step", ["get", "pop"], "small", 100000, "city", 1000000, "metropolis"]`, nil, `"city"`},
		{`["match", ["id"], [1, 2], "low", 3, "three", "other"]`, nil, `"three"`},
		{`["to-string", ["get", "tags"]]`, nil, `"[\"a\",\"b\"]"`},
		{`["join", ["get", "tags"], "+"]`, nil, `"a+b"`},
		{`["number-format", ["get", "pop"], {"locale": "de"}]`, nil, `"415.000"`},
		{`["coalesce", ["get", "missing"], ["get", "name"]]`, nil, `"Zürich"`},
		{`["to-rgba", ["to-color", "#336699"]]`, nil, `[51,102,153,1]`},
		{`["geometry-type"]`, nil, `"Point"`},
		{`["get", "pop"]`, &PropertySpec{Type: "string", PropertyType: "data-driven", Expression: &ExpressionSupport{Parameters: []string{"feature"}}}, `"415000"`},
	}
	for _, tt := range tests {
		e := mustCompile(t, tt.src, tt.spec)
		v, err := e.Eval(&EvalContext{Feature: feat})
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := toStringJSON(v); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src, key, msg string
	}{
		{`["+", 1, "a"]`, "[2]", "Expected number but found string instead."},
		{`["nope"]`, "[0]", `Unknown expression "nope". If you wanted a literal array, use ["literal", [...]].`},
		{`["let", "a", 1, ["var", "b"]]`, "[3][1]", `Unknown variable "b". Make sure "b" has been bound in an enclosing "let" expression before using it.`},
		{`["to-color", "nocolor"]`, "", "Could not parse color from value 'nocolor'"},
	}
	for _, tt := range tests {
		_, errs := Compile([]byte(tt.src), nil)
		if len(errs) != 1 || errs[0].Key != tt.key || errs[0].Message != tt.msg {
			t.Errorf("Compile(%s) errors = %v, want [%s: %s]", tt.src, errs, tt.key, tt.msg)
		}
	}
	if _, errs := Compile([]byte(`[`), nil); len(errs) == 0 {
		t.Error("invalid JSON: want an error")
	}
	deep := ""
	for i := 0; i < 300; i++ {
		deep += `["-",`
	}
	deep += "1"
	for i := 0; i < 300; i++ {
		deep += "]"
	}
	if _, errs := Compile([]byte(deep), nil); len(errs) == 0 {
		t.Error("300 levels of nesting: want an error")
	}
}

func TestEvalErrorKey(t *testing.T) {
	e := mustCompile(t, `["+", 1, ["number", ["get", "x"]]]`, nil)
	_, err := e.Eval(&EvalContext{Feature: &MapFeature{Props: &Object{}}})
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Key != "[2]" || ee.Message != "Expected value to be of type number, but found null instead." {
		t.Fatalf("error = %#v", err)
	}
}

func TestEvalOrDefault(t *testing.T) {
	spec := &PropertySpec{Type: "color", PropertyType: "data-driven", Default: json.RawMessage(`"#000000"`),
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}
	e := mustCompile(t, `["to-color", ["get", "c"]]`, spec)
	props := &Object{}
	props.Set("c", String("not a color"))
	v := e.EvalOrDefault(&EvalContext{Feature: &MapFeature{Props: props}})
	if v.Kind() != KindColor || v.Color() != (Color{0, 0, 0, 1}) {
		t.Fatalf("EvalOrDefault = %s, want black", toStringJSON(v))
	}
}

func TestPropertyRestrictions(t *testing.T) {
	constant := &PropertySpec{Type: "number", PropertyType: "data-constant",
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom"}}}
	if _, errs := Compile([]byte(`["get", "x"]`), constant); len(errs) != 1 || errs[0].Message != "data expressions not supported" {
		t.Errorf("data expression on data-constant property: %v", errs)
	}
	noZoom := &PropertySpec{Type: "number", PropertyType: "data-driven",
		Expression: &ExpressionSupport{Parameters: []string{"feature"}}}
	if _, errs := Compile([]byte(`["interpolate", ["linear"], ["zoom"], 0, 1, 10, 2]`), noZoom); len(errs) != 1 || errs[0].Message != "zoom expressions not supported" {
		t.Errorf("zoom expression on feature-only property: %v", errs)
	}
	e := mustCompile(t, `["interpolate", ["linear"], ["zoom"], 0, 1, 10, 2]`, constant)
	if e.Kind() != "camera" || len(e.ZoomStops()) != 2 {
		t.Errorf("kind %s stops %v", e.Kind(), e.ZoomStops())
	}
}

func TestWithinExtent4096(t *testing.T) {
	// A point in the middle of tile 1/1/0 (lng 90, lat ~66.5) inside a polygon around it.
	e := mustCompile(t, `["within", {"type": "Polygon", "coordinates": [[[80, 60], [100, 60], [100, 70], [80, 70], [80, 60]]]}]`, nil)
	for _, ext := range []float64{4096, 8192} {
		f := &MapFeature{Type: "Point", Geom: [][]Point{{{ext / 2, ext / 2}}}, Props: &Object{}}
		ok, err := e.EvalBool(&EvalContext{Feature: f, Canonical: &TileID{Z: 1, X: 1, Y: 0}, Extent: ext})
		if err != nil || !ok {
			t.Errorf("extent %v: within = %v, %v; want true", ext, ok, err)
		}
	}
}

func TestLegacyFunction(t *testing.T) {
	spec := &PropertySpec{Type: "number", PropertyType: "data-driven",
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}
	e := mustCompile(t, `{"base": 2, "stops": [[10, 1], [12, 5]]}`, spec)
	got, err := e.EvalNumber(&EvalContext{Zoom: 11})
	// exponential: (2^1 - 1) / (2^2 - 1) = 1/3 of the way from 1 to 5.
	if err != nil || math.Abs(got-(1+4.0/3)) > 1e-9 {
		t.Fatalf("legacy zoom function at z11 = %v, %v", got, err)
	}
	if e.Kind() != "camera" {
		t.Errorf("kind %s, want camera", e.Kind())
	}
}

func TestCompileFilter(t *testing.T) {
	props := &Object{}
	props.Set("class", String("street"))
	props.Set("rank", Number(3))
	props.Set("name", String("Main"))
	feat := &MapFeature{Props: props, Id: Number(12), Type: "LineString"}
	tests := []struct {
		filter string
		want   bool
	}{
		{`["==", "class", "street"]`, true},
		{`["!=", "class", "street"]`, false},
		{`["==", "rank", "3"]`, false},
		{`["<", "rank", 5]`, true},
		{`[">=", "rank", "1"]`, false},
		{`["in", "class", "path", "street"]`, true},
		{`["!in", "class", "path", "street"]`, false},
		{`["has", "name"]`, true},
		{`["!has", "ref"]`, true},
		{`["==", "$type", "LineString"]`, true},
		{`["in", "$type", "Point", "Polygon"]`, false},
		{`["==", "$id", 12]`, true},
		{`["has", "$id"]`, true},
		{`["all", ["==", "class", "street"], ["none", ["<", "rank", 2]]]`, true},
		{`["any"]`, false},
		{`["all"]`, true},
		{`null`, true},
		{`["all", ["==", ["get", "class"], "street"], [">", ["get", "rank"], 2]]`, true},
		{`["match", ["geometry-type"], ["LineString"], true, false]`, true},
	}
	for _, tt := range tests {
		e, errs := CompileFilter([]byte(tt.filter))
		if len(errs) > 0 {
			t.Errorf("CompileFilter(%s): %v", tt.filter, errs)
			continue
		}
		got, err := e.EvalBool(&EvalContext{Feature: feat})
		if err != nil || got != tt.want {
			t.Errorf("filter %s = %v, %v; want %v", tt.filter, got, err, tt.want)
		}
	}
}

func TestPropertySpecs(t *testing.T) {
	path := sharedDir(t) + "/style-spec/v8.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("style spec not found at %s (../shared is absent): %v", path, err)
	}
	specs, err := PropertySpecs(data)
	if err != nil {
		t.Fatal(err)
	}
	lc := specs["paint_line"]["line-color"]
	if lc == nil || lc.Type != "color" || lc.PropertyType != "data-driven" || !lc.supportsInterpolation() {
		t.Fatalf("paint_line/line-color = %+v", lc)
	}
	e, errs := Compile([]byte(`["interpolate", ["linear"], ["zoom"], 5, "red", 10, ["get", "c"]]`), lc)
	if len(errs) > 0 || e.Kind() != "composite" {
		t.Fatalf("compile line-color: %v", errs)
	}
	ta := specs["layout_symbol"]["text-anchor"]
	if ta == nil || ta.Type != "enum" || len(ta.Values) == 0 {
		t.Fatalf("layout_symbol/text-anchor = %+v", ta)
	}
	// Constants are taken literally.
	tf := specs["layout_symbol"]["text-font"]
	e, errs = CompileValue([]byte(`["Noto Sans Regular"]`), tf)
	if len(errs) > 0 {
		t.Fatalf("text-font constant: %v", errs)
	}
	if v, _ := e.Constant(); toStringJSON(v) != `["Noto Sans Regular"]` {
		t.Errorf("text-font constant = %s", toStringJSON(v))
	}
	// Every default value must compile for its own property.
	n := 0
	for section, props := range specs {
		for name, p := range props {
			if len(p.Default) == 0 {
				continue
			}
			n++
			if _, errs := CompileValue(json.RawMessage(p.Default), p); len(errs) > 0 {
				t.Errorf("%s/%s default %s: %v", section, name, p.Default, errs)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d defaults checked", n)
	}
}

func TestResolveTokens(t *testing.T) {
	props := &Object{}
	props.Set("name", String("Bern"))
	props.Set("ele", Number(540))
	props.Set("list", Array([]Value{Number(1), Array([]Value{Number(2), Number(0.5)}), Null(), String("x")}))
	obj := &Object{}
	obj.Set("k", Number(1))
	props.Set("obj", ObjectValue(obj))
	props.Set("none", Null())
	props.Set("yes", Bool(true))
	f := &MapFeature{Props: props}
	// Arrays, objects and null are written as JavaScript's String() writes
	// them, as MapLibre GL JS 6.17 draws "<{a}>" for GeoJSON properties
	// [1, 2], {"k": 1}, null and [1, [2, 3], "x"]: <1,2>, <[object Object]>,
	// <null>, <1,2,3,x>.
	tests := []struct{ in, want string }{
		{"<{list}>", "<1,2,0.5,,x>"},
		{"<{obj}>", "<[object Object]>"},
		{"<{none}>", "<null>"},
		{"<{yes}>", "<true>"},
		{"{name}", "Bern"},
		{"{name} ({ele} m)", "Bern (540 m)"},
		{"{missing}x", "x"},
		{"no tokens", "no tokens"},
		{"{unclosed", "{unclosed"},
		{"{}{name}", "{}Bern"},
	}
	for _, tt := range tests {
		if got := ResolveTokens(f, tt.in); got != tt.want {
			t.Errorf("ResolveTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInterpolateSpecialTypes(t *testing.T) {
	pad := &PropertySpec{Type: "padding", PropertyType: "data-driven",
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}
	e := mustCompile(t, `["interpolate", ["linear"], ["zoom"], 0, 2, 10, ["literal", [4, 8]]]`, pad)
	v, err := e.Eval(&EvalContext{Zoom: 5})
	if err != nil || toStringJSON(v) != `{"values":[3,5,3,5]}` {
		t.Errorf("padding at z5 = %s, %v", toStringJSON(v), err)
	}
	vaoc := &PropertySpec{Type: "variableAnchorOffsetCollection", PropertyType: "data-driven",
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}
	e = mustCompile(t, `["interpolate", ["linear"], ["zoom"], 0, ["literal", ["top", [0, 0], "left", [2, 2]]], 10, ["literal", ["top", [0, 10], "left", [4, 2]]]]`, vaoc)
	v, err = e.Eval(&EvalContext{Zoom: 5})
	if err != nil || toStringJSON(v) != `{"values":["top",[0,5],"left",[3,2]]}` {
		t.Errorf("variable anchor offsets at z5 = %s, %v", toStringJSON(v), err)
	}
	_, errs := Compile([]byte(`["literal", ["middle", [0, 0]]]`), vaoc)
	if len(errs) != 1 || errs[0].Message != `Could not parse variableAnchorOffsetCollection from value '["middle",[0,0]]'` {
		t.Errorf("invalid anchor: errors %v", errs)
	}
}

func TestLegacyFunctionErrors(t *testing.T) {
	for _, src := range []string{
		`{"property": "p", "stops": [[{"zoom": 0, "value": 1}, 1], [2, 3]]}`,
		`{"property": "p", "stops": []}`,
		`{"property": "p", "stops": [[1]]}`,
		`{"property": "p", "type": "bogus", "stops": [[1, 2]]}`,
	} {
		if _, errs := Compile([]byte(src), numberSpec); len(errs) == 0 {
			t.Errorf("Compile(%s): want an error", src)
		}
	}
}

// TestConcurrentEval evaluates shared expressions from several goroutines
// (run with -race).
func TestConcurrentEval(t *testing.T) {
	exprs := []*Expression{
		mustCompile(t, `["interpolate-hcl", ["linear"], ["get", "x"], 0, "red", 100, "blue"]`, colorSpec),
		mustCompile(t, `["==", ["get", "name"], "b", ["collator", {"case-sensitive": false, "locale": "de"}]]`, nil),
		mustCompile(t, `["number-format", ["get", "x"], {"locale": "fr", "max-fraction-digits": 1}]`, nil),
	}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			props := &Object{}
			props.Set("x", Number(float64(g*10)))
			props.Set("name", String("B"))
			ctx := &EvalContext{Feature: &MapFeature{Props: props}}
			for i := 0; i < 200; i++ {
				for _, e := range exprs {
					if _, err := e.Eval(ctx); err != nil {
						done <- err
						return
					}
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestDistanceLargeGeometry(t *testing.T) {
	// 20000-vertex line against a 20000-point feature must stay fast.
	coords := make([]any, 20000)
	for i := range coords {
		coords[i] = []any{3 + float64(i)*1e-5, 3.0}
	}
	expr := []any{"distance", map[string]any{"type": "LineString", "coordinates": coords}}
	de, errs := Compile(expr, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	pts := make([]Point, 20000)
	for i := range pts {
		pts[i] = Point{float64(i % 8192), float64(i / 8192)}
	}
	f := &MapFeature{Props: &Object{}, Type: "LineString", Geom: [][]Point{pts}}
	start := time.Now()
	v, err := de.EvalNumber(&EvalContext{Feature: f, Canonical: &TileID{Z: 10, X: 520, Y: 500}})
	if err != nil || math.IsNaN(v) || v <= 0 {
		t.Fatalf("distance = %v, %v", v, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("distance over 20000x20000 vertices took %v", d)
	}
}

// marshalerDoc stands for another package's JSON document type (a style's
// ordered object).
type marshalerDoc string

func (m marshalerDoc) MarshalJSON() ([]byte, error) { return []byte(m), nil }

func TestCompileValueMarshaler(t *testing.T) {
	spec := &PropertySpec{Type: "color", PropertyType: "data-driven", Default: json.RawMessage(`"#000000"`),
		Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}}
	e, errs := CompileValue(marshalerDoc(`{"property": "rank", "stops": [[0, "red"], [10, "blue"]]}`), spec)
	if len(errs) > 0 {
		t.Fatalf("legacy function given as a json.Marshaler: %v", errs)
	}
	props := &Object{}
	props.Set("rank", Number(10))
	if v := e.EvalOrDefault(&EvalContext{Feature: &MapFeature{Props: props}}); v.Color() != (Color{0, 0, 1, 1}) {
		t.Fatalf("rank 10 = %s, want blue", toStringJSON(v))
	}
	if _, errs := CompileValue(marshalerDoc(`{"broken"`), spec); len(errs) == 0 {
		t.Fatal("a marshaler giving broken JSON compiled")
	}
}

func TestFilterZoomAnywhere(t *testing.T) {
	f, errs := CompileFilter([]byte(`["<=", ["get", "rank"], ["step", ["zoom"], 1, 3, 3, 5, 5]]`))
	if len(errs) > 0 {
		t.Fatalf("a filter with a nested zoom step: %v", errs)
	}
	props := &Object{}
	props.Set("rank", Number(3))
	for zoom, want := range map[float64]bool{2: false, 3: true, 6: true} {
		v := f.EvalOrDefault(&EvalContext{Zoom: zoom, Feature: &MapFeature{Props: props}})
		if v.Kind() != KindBoolean || v.Boolean() != want {
			t.Errorf("zoom %g: %s, want %v", zoom, toStringJSON(v), want)
		}
	}
}

func TestValueFromGoNumbers(t *testing.T) {
	// Vector tiles carry unsigned and signed integers and floats.
	for _, v := range []any{int(3), int32(3), int64(3), uint(3), uint32(3), uint64(3), float32(3), float64(3)} {
		got, err := ValueFromGo(v)
		if err != nil || got.Kind() != KindNumber || got.Num() != 3 {
			t.Errorf("%T: %v %v", v, got, err)
		}
	}
}
