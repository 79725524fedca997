package expr

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestIsLegacyFilter(t *testing.T) {
	tests := []struct {
		filter string
		legacy bool
	}{
		{`true`, false},
		{`"x"`, true},
		{`[]`, true},
		{`["==", "class", "street"]`, true},
		{`["==", ["get", "class"], "street"]`, false},
		{`["==", "class", ["literal", "street"]]`, false},
		{`["==", "a", "b", "c"]`, false},
		{`["has", "name"]`, false},
		{`["has", "$id"]`, true},
		{`["has", "$type"]`, true},
		{`["has"]`, true},
		{`["in", "class", "a", "b"]`, true},
		{`["in", "class", ["literal", ["a"]]]`, false},
		{`["in", ["get", "class"], "a"]`, false},
		{`["in", "class"]`, true},
		{`["!in", "class", "a"]`, true},
		{`["!has", "name"]`, true},
		{`["none", true]`, true},
		{`["all", true, ["==", ["get", "a"], 1]]`, false},
		{`["all", true, ["==", "a", 1]]`, true},
		{`["any", ["has", "$id"]]`, true},
		{`["match", ["get", "a"], 1, true, false]`, false},
	}
	for _, tt := range tests {
		var doc any
		if err := json.Unmarshal([]byte(tt.filter), &doc); err != nil {
			t.Fatal(err)
		}
		if got := IsLegacyFilter(doc); got != tt.legacy {
			t.Errorf("IsLegacyFilter(%s) = %v, want %v", tt.filter, got, tt.legacy)
		}
	}
}

func TestLegacyToExpression(t *testing.T) {
	tests := []struct{ filter, want string }{
		{`["==", "class", "street"]`, `["legacy:property==","class","street"]`},
		{`["!=", "$type", "Point"]`, `["!",["legacy:geometry-type==","Point"]]`},
		{`[">=", "$id", 3]`, `["legacy:id>=",3]`},
		{`["<", "rank"]`, `["legacy:property<","rank",null]`},
		{`["in", "class", "a", "b"]`, `["legacy:property-among","class",["literal",["a","b"]]]`},
		{`["in", "$type", "Point"]`, `["legacy:geometry-type-among",["literal",["Point"]]]`},
		{`["!in", "$id", 1]`, `["!",["legacy:id-among",["literal",[1]]]]`},
		{`["in", "class"]`, `false`},
		{`["has", "name"]`, `["legacy:property-exists","name"]`},
		{`["has", "$type"]`, `true`},
		{`["!has", "$id"]`, `["!",["legacy:id-exists"]]`},
		{`["none", ["has", "a"], ["==", "b", 1]]`, `["all",["!",["legacy:property-exists","a"]],["!",["legacy:property==","b",1]]]`},
		{`["any"]`, `false`},
		{`["none"]`, `true`},
		{`["whatever", 1]`, `true`},
		{`"x"`, `true`},
	}
	for _, tt := range tests {
		var doc any
		if err := json.Unmarshal([]byte(tt.filter), &doc); err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(legacyToExpression(doc)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(buf.String()); got != tt.want {
			t.Errorf("legacyToExpression(%s) = %s, want %s", tt.filter, got, tt.want)
		}
	}
}

// TestLegacyFilterMissingSubject checks the membership and presence tests
// when what they read is absent.
func TestLegacyFilterMissingSubject(t *testing.T) {
	props := &Object{}
	props.Set("class", Null())
	tests := []struct {
		filter string
		feat   *MapFeature
		want   bool
	}{
		{`["in", "$id", null]`, nil, false},
		{`["in", "$id", null]`, &MapFeature{Props: props}, true},
		{`["in", "class", null]`, &MapFeature{Props: props}, true},
		{`["in", "rank", null]`, &MapFeature{Props: props}, false},
		{`["has", "$id"]`, &MapFeature{Props: props}, false},
		{`["has", "$id"]`, &MapFeature{Props: props, Id: Number(0)}, true},
		{`["==", "rank", null]`, &MapFeature{Props: props}, false},
		{`["!=", "rank", null]`, &MapFeature{Props: props}, true},
	}
	for _, tt := range tests {
		e, errs := CompileFilter([]byte(tt.filter))
		if len(errs) > 0 {
			t.Fatalf("CompileFilter(%s): %v", tt.filter, errs)
		}
		ctx := &EvalContext{}
		if tt.feat != nil {
			ctx.Feature = tt.feat
		}
		if got, err := e.EvalBool(ctx); err != nil || got != tt.want {
			t.Errorf("%s on %+v = %v, %v; want %v", tt.filter, tt.feat, got, err, tt.want)
		}
	}
}
