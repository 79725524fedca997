package expr

import (
	"encoding/json"
	"fmt"
	"github.com/tesseramaps/tessera/internal/geo"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// sharedDir returns ../shared beside the repository, or "" when absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.SharedDir()
}

type fixture struct {
	Expression   json.RawMessage   `json:"expression"`
	PropertySpec json.RawMessage   `json:"propertySpec"`
	GlobalState  json.RawMessage   `json:"globalState"`
	Inputs       []json.RawMessage `json:"inputs"`
	Expected     struct {
		Compiled struct {
			Result            string `json:"result"`
			IsFeatureConstant bool   `json:"isFeatureConstant"`
			IsZoomConstant    bool   `json:"isZoomConstant"`
			Type              string `json:"type"`
			Errors            []struct {
				Key   string `json:"key"`
				Error string `json:"error"`
			} `json:"errors"`
		} `json:"compiled"`
		Outputs []json.RawMessage `json:"outputs"`
	} `json:"expected"`
}

type fixtureGlobals struct {
	Zoom            *float64 `json:"zoom"`
	HeatmapDensity  *float64 `json:"heatmapDensity"`
	Elevation       *float64 `json:"elevation"`
	AvailableImages []string `json:"availableImages"`
	CanonicalID     *TileID  `json:"canonicalID"`
}

type fixtureFeature struct {
	Properties   json.RawMessage `json:"properties"`
	ID           json.RawMessage `json:"id"`
	FeatureState json.RawMessage `json:"featureState"`
	Geometry     *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

// tilePoint projects longitude/latitude into rounded tile coordinates of the
// canonical tile (extent 8192), like a vector tile pipeline does.
func tilePoint(c [2]float64, id TileID) Point {
	tiles := math.Exp2(float64(id.Z))
	wx, wy := geo.LonLatToWorld(c[0], c[1])
	x := (wx*tiles - float64(id.X)) * 8192
	y := (wy*tiles - float64(id.Y)) * 8192
	return Point{jsRound(x), jsRound(y)}
}

func fixtureGeometry(typ string, raw json.RawMessage, id TileID) (string, [][]Point, error) {
	line := func(cs [][2]float64) []Point {
		out := make([]Point, len(cs))
		for i, c := range cs {
			out[i] = tilePoint(c, id)
		}
		return out
	}
	switch typ {
	case "Point":
		var c [2]float64
		if err := json.Unmarshal(raw, &c); err != nil {
			return "", nil, err
		}
		return "Point", [][]Point{{tilePoint(c, id)}}, nil
	case "MultiPoint":
		var cs [][2]float64
		if err := json.Unmarshal(raw, &cs); err != nil {
			return "", nil, err
		}
		var g [][]Point
		for _, c := range cs {
			g = append(g, []Point{tilePoint(c, id)})
		}
		return "Point", g, nil
	case "LineString":
		var cs [][2]float64
		if err := json.Unmarshal(raw, &cs); err != nil {
			return "", nil, err
		}
		return "LineString", [][]Point{line(cs)}, nil
	case "MultiLineString", "Polygon":
		var ls [][][2]float64
		if err := json.Unmarshal(raw, &ls); err != nil {
			return "", nil, err
		}
		var g [][]Point
		for _, l := range ls {
			g = append(g, line(l))
		}
		if typ == "Polygon" {
			return "Polygon", g, nil
		}
		return "LineString", g, nil
	case "MultiPolygon":
		var ps [][][][2]float64
		if err := json.Unmarshal(raw, &ps); err != nil {
			return "", nil, err
		}
		var g [][]Point
		for _, p := range ps {
			for _, l := range p {
				g = append(g, line(l))
			}
		}
		return "Polygon", g, nil
	}
	return typ, nil, nil
}

// stripPrecision truncates a number to 6 significant figures (as the
// reference runner does, twice to absorb floating point luck).
func stripPrecision(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	m := math.Pow(10, math.Max(0, 6-math.Ceil(math.Log10(math.Abs(x)))))
	first := math.Floor(x*m) / m
	return math.Floor(first*m) / m
}

func numbersClose(a, b float64) bool {
	sa, sb := stripPrecision(a), stripPrecision(b)
	if sa == sb {
		return true
	}
	// One unit in the sixth significant figure.
	scale := math.Max(math.Abs(a), math.Abs(b))
	return math.Abs(a-b) <= scale*1.5e-6
}

func deepClose(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && numbersClose(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepClose(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !deepClose(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// runFixture returns "" on success or the reason of the failure.
func runFixture(path string) (reason string) {
	defer func() {
		if r := recover(); r != nil {
			reason = fmt.Sprintf("panic: %v", r)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var fx fixture
	if err := json.Unmarshal(data, &fx); err != nil {
		return "bad fixture: " + err.Error()
	}
	spec := &PropertySpec{}
	if len(fx.PropertySpec) > 0 {
		if err := json.Unmarshal(fx.PropertySpec, spec); err != nil {
			return "bad propertySpec: " + err.Error()
		}
	}
	if spec.PropertyType == "" {
		spec.PropertyType = "data-driven"
	}
	if spec.Expression == nil {
		spec.Expression = &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}
	}
	e, errs := Compile(fx.Expression, spec)
	want := fx.Expected.Compiled
	if len(errs) > 0 {
		if want.Result != "error" {
			return fmt.Sprintf("unexpected compile errors %v", errs)
		}
		if len(errs) != len(want.Errors) {
			return fmt.Sprintf("compile errors %v, want %v", errs, want.Errors)
		}
		for i, ce := range errs {
			if ce.Key != want.Errors[i].Key || ce.Message != want.Errors[i].Error {
				return fmt.Sprintf("compile error %q %q, want %q %q", ce.Key, ce.Message, want.Errors[i].Key, want.Errors[i].Error)
			}
		}
		return ""
	}
	if want.Result != "success" {
		return fmt.Sprintf("compiled, want errors %v", want.Errors)
	}
	if got := e.Type().String(); got != want.Type {
		return fmt.Sprintf("type %s, want %s", got, want.Type)
	}
	if e.IsFeatureConstant() != want.IsFeatureConstant || e.IsZoomConstant() != want.IsZoomConstant {
		return fmt.Sprintf("feature/zoom constant %v/%v, want %v/%v", e.IsFeatureConstant(), e.IsZoomConstant(), want.IsFeatureConstant, want.IsZoomConstant)
	}
	var global *Object
	if len(fx.GlobalState) > 0 {
		gv, err := ValueFromJSON(fx.GlobalState)
		if err != nil {
			return err.Error()
		}
		global = gv.Obj()
	}
	if fx.Expected.Outputs == nil {
		return ""
	}
	if len(fx.Expected.Outputs) != len(fx.Inputs) {
		return "fixture inputs/outputs mismatch"
	}
	for i, in := range fx.Inputs {
		var pair []json.RawMessage
		if err := json.Unmarshal(in, &pair); err != nil || len(pair) < 1 {
			return "bad input"
		}
		var g fixtureGlobals
		if err := json.Unmarshal(pair[0], &g); err != nil {
			return "bad globals: " + err.Error()
		}
		var f fixtureFeature
		if len(pair) > 1 {
			if err := json.Unmarshal(pair[1], &f); err != nil {
				return "bad feature: " + err.Error()
			}
		}
		ctx := &EvalContext{GlobalState: global, Canonical: g.CanonicalID}
		if g.Zoom != nil {
			ctx.Zoom = *g.Zoom
		}
		if g.HeatmapDensity != nil {
			ctx.HeatmapDensity = *g.HeatmapDensity
		}
		if g.Elevation != nil {
			ctx.Elevation = *g.Elevation
		}
		ctx.AvailableImages = map[string]bool{}
		for _, name := range g.AvailableImages {
			ctx.AvailableImages[name] = true
		}
		feat := &MapFeature{Props: &Object{}, Id: Null()}
		if len(f.Properties) > 0 {
			pv, err := ValueFromJSON(f.Properties)
			if err != nil {
				return err.Error()
			}
			if o := pv.Obj(); o != nil {
				feat.Props = o
			}
		}
		if len(f.ID) > 0 {
			iv, err := ValueFromJSON(f.ID)
			if err != nil {
				return err.Error()
			}
			feat.Id = iv
		}
		if len(f.FeatureState) > 0 {
			sv, err := ValueFromJSON(f.FeatureState)
			if err != nil {
				return err.Error()
			}
			ctx.FeatureState = sv.Obj()
		}
		if f.Geometry != nil {
			feat.Type = f.Geometry.Type
			if g.CanonicalID != nil {
				typ, geom, err := fixtureGeometry(f.Geometry.Type, f.Geometry.Coordinates, *g.CanonicalID)
				if err != nil {
					return "bad geometry: " + err.Error()
				}
				feat.Type, feat.Geom = typ, geom
			}
		}
		ctx.Feature = feat
		v, err := e.Eval(ctx)
		var wantErr struct {
			Error *string `json:"error"`
		}
		_ = json.Unmarshal(fx.Expected.Outputs[i], &wantErr)
		if wantErr.Error != nil {
			if err == nil {
				return fmt.Sprintf("input %d: got %s, want error %q", i, toStringJSON(v), *wantErr.Error)
			}
			ee, _ := err.(*EvalError)
			got := err.Error()
			if ee != nil {
				got = "layers[0].paint.some-property" + ee.Key + ": " + ee.Message
			}
			if got != *wantErr.Error {
				return fmt.Sprintf("input %d: error %q, want %q", i, got, *wantErr.Error)
			}
			continue
		}
		if err != nil {
			return fmt.Sprintf("input %d: error %v, want %s", i, err, fx.Expected.Outputs[i])
		}
		var gotJSON []byte
		if e.Type().Kind == KindColor {
			gotJSON, _ = json.Marshal(v.Color().Premultiplied())
		} else {
			gotJSON, _ = v.MarshalJSON()
		}
		var gotAny, wantAny any
		if err := json.Unmarshal(gotJSON, &gotAny); err != nil {
			return fmt.Sprintf("input %d: bad output JSON %s", i, gotJSON)
		}
		if err := json.Unmarshal(fx.Expected.Outputs[i], &wantAny); err != nil {
			return "bad expected output"
		}
		if !deepClose(gotAny, wantAny) {
			return fmt.Sprintf("input %d: got %s, want %s", i, gotJSON, fx.Expected.Outputs[i])
		}
	}
	return ""
}

// minFixtures is the number of expression fixtures in the shared material
// when this guard was set (577, all passing). Fewer means fixtures are
// silently skipped or lost, and fails the test.
const minFixtures = 577

// knownFailuresFile lists the fixtures allowed to fail, each with a reason;
// it is reviewed like code and is empty while every fixture passes.
const knownFailuresFile = "testdata/known-failures.txt"

// TestFixtures runs every expression fixture of the shared material. Any
// fixture that fails and is not listed in knownFailuresFile fails the test,
// as does a listed fixture that passes (or no longer exists).
func TestFixtures(t *testing.T) {
	shared := sharedDir(t)
	root := filepath.Join(shared, "expression-tests", "tests")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("expression fixtures not found at %s (../shared is absent): %v", root, err)
	}
	known := fixtures.LoadKnown(t, knownFailuresFile)
	var paths []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "test.json" {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk fixtures: %v", err)
	}
	sort.Strings(paths)
	var failures, regressions []string
	for _, p := range paths {
		name := filepath.ToSlash(strings.TrimSuffix(strings.TrimPrefix(p, root+string(filepath.Separator)), string(filepath.Separator)+"test.json"))
		if reason := runFixture(p); reason != "" {
			failures = append(failures, name+": "+reason)
			if !known.Excuses(name) {
				regressions = append(regressions, name+": "+reason)
			}
		}
	}
	passed := len(paths) - len(failures)
	// The first line of `make test` greps this line: keep its wording.
	t.Logf("expression fixtures: %d passed, %d failed", passed, len(failures))
	t.Logf("known failures listed in %s: %d; fixtures required: at least %d", knownFailuresFile, known.Len(), minFixtures)
	for _, f := range failures {
		t.Log(f)
	}
	if len(paths) < minFixtures {
		t.Errorf("%d fixtures found under %s, want at least %d: fixtures are missing or skipped", len(paths), root, minFixtures)
	}
	for _, r := range regressions {
		t.Errorf("fixture fails and is not a listed known failure: %s", r)
	}
	known.ReportStale(t)
}
