package expr

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// pinnedFile holds expressions with what compiling and evaluating them
// gives, one case a line: the property spec (JSON, or - for none), the
// expression, the feature's properties (JSON, or -) and the outcome, tab
// separated. It pins the behaviour of the nodes rewritten for issue 19
// (recorded from the code before each rewrite, kept by the rewrite).
// TESSERA_RECORD_PINNED=1 rewrites the outcome column from the code as it
// is; a line with an empty outcome is a new case to record.
const pinnedFile = "testdata/pinned.txt"

// pinnedOutcome compiles and evaluates one case at zoom 5, with the
// images "ok" and "ok2" available and the global state {"g": "global"}.
func pinnedOutcome(specJSON, src, propsJSON string) (string, error) {
	var spec *PropertySpec
	if specJSON != "-" {
		spec = &PropertySpec{}
		if err := json.Unmarshal([]byte(specJSON), spec); err != nil {
			return "", fmt.Errorf("spec %s: %w", specJSON, err)
		}
		if spec.PropertyType == "" {
			spec.PropertyType = "data-driven"
		}
		if spec.Expression == nil {
			spec.Expression = &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature"}}
		}
	}
	props := &Object{}
	if propsJSON != "-" {
		v, err := ValueFromJSON([]byte(propsJSON))
		if err != nil || v.Obj() == nil {
			return "", fmt.Errorf("props %s: %v", propsJSON, err)
		}
		props = v.Obj()
	}
	e, errs := Compile([]byte(src), spec)
	if len(errs) > 0 {
		var parts []string
		for _, ce := range errs {
			parts = append(parts, ce.Key+" "+ce.Message)
		}
		return "errors=" + strings.Join(parts, " | "), nil
	}
	global := &Object{}
	global.Set("g", String("global"))
	c := &EvalContext{Zoom: 5, Feature: &MapFeature{Props: props, Type: "Point"}, GlobalState: global,
		AvailableImages: map[string]bool{"ok": true, "ok2": true}}
	v, err := e.Eval(c)
	out := "type=" + e.Type().String()
	if err != nil {
		var ee *EvalError
		if errors.As(err, &ee) {
			return out + " eval=" + ee.Key + " " + ee.Message, nil
		}
		return out + " eval=" + err.Error(), nil
	}
	return out + " value=" + toStringJSON(v), nil
}

func TestPinnedBehaviour(t *testing.T) {
	f, err := os.Open(pinnedFile)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	f.Close()
	record := os.Getenv("TESSERA_RECORD_PINNED") == "1"
	cases := 0
	for i, l := range lines {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cols := strings.Split(l, "\t")
		if len(cols) == 3 {
			cols = append(cols, "")
		}
		if len(cols) != 4 {
			t.Fatalf("%s:%d: want 4 tab-separated columns, found %d", pinnedFile, i+1, len(cols))
		}
		got, err := pinnedOutcome(cols[0], cols[1], cols[2])
		if err != nil {
			t.Fatalf("%s:%d: %v", pinnedFile, i+1, err)
		}
		cases++
		if record {
			cols[3] = got
			lines[i] = strings.Join(cols, "\t")
			continue
		}
		if got != cols[3] {
			t.Errorf("%s:%d: %s\n got  %s\n want %s", pinnedFile, i+1, cols[1], got, cols[3])
		}
	}
	if record {
		if err := os.WriteFile(pinnedFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cases < 100 {
		t.Errorf("only %d pinned cases", cases)
	}
}

// pinnedTypes are the types TestPinnedSubtypes checks in pairs: every
// kind, and arrays of several item types and lengths.
func pinnedTypes() []Type {
	var ts []Type
	for k := KindValue; k <= KindError; k++ {
		if k != KindArray {
			ts = append(ts, Type{Kind: k, N: -1})
		}
	}
	collators := ArrayOf(CollatorType, -1)
	numbers := ArrayOf(NumberType, -1)
	return append(ts,
		ArrayOf(ValueType, -1), ArrayOf(ValueType, 0), ArrayOf(ValueType, 2),
		numbers, ArrayOf(NumberType, 2), ArrayOf(NumberType, 0), ArrayOf(StringType, 0),
		collators, ArrayOf(collators, -1), ArrayOf(numbers, -1), ArrayOf(ColorType, 1), ArrayOf(ErrorType, -1))
}

// TestPinnedSubtypes checks isSubtype over every pair of pinnedTypes
// against testdata/subtypes.txt (one line a wanted type: the types it
// accepts); TESSERA_RECORD_PINNED=1 rewrites it.
func TestPinnedSubtypes(t *testing.T) {
	const file = "testdata/subtypes.txt"
	ts := pinnedTypes()
	var b strings.Builder
	b.WriteString("# isSubtype(want, got) over pinned_test.go's pinnedTypes: each want and the types it accepts.\n")
	for _, want := range ts {
		var ok []string
		for _, got := range ts {
			if isSubtype(want, got) {
				ok = append(ok, got.String())
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", want.String(), strings.Join(ok, ", "))
	}
	if os.Getenv("TESSERA_RECORD_PINNED") == "1" {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(string(raw), "\n")
	got := strings.Split(b.String(), "\n")
	if len(want) != len(got) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s:%d:\n got  %s\n want %s", file, i+1, got[i], want[i])
		}
	}
}
