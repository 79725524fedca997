package style

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"testing"
)

var updateMinSpec = flag.Bool("update-min-spec", false, "rewrite specdata/v8.min.json from specdata/v8.json")

// specDocs are the specification's members written for people, not
// programs: its prose, its examples and its table of SDK support.
var specDocs = map[string]bool{"doc": true, "example": true, "sdk-support": true}

// fullSpec reads specdata/v8.json, the specification as published.
func fullSpec(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("specdata/v8.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// minSpec returns v8.json without its documentation members (specDocs),
// as compact JSON with the members in the document's order.
func minSpec(t *testing.T) []byte {
	t.Helper()
	full, err := decodeJSON(fullSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(withoutDocs(full)); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// withoutDocs copies a decoded value without the members specDocs names.
func withoutDocs(v any) any {
	switch v := v.(type) {
	case *Object:
		o := NewObject()
		for _, k := range v.keys {
			if !specDocs[k] {
				val, _ := v.Get(k)
				o.Set(k, withoutDocs(val))
			}
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutDocs(e)
		}
		return out
	}
	return v
}

// TestMinSpec holds the embedded v8.min.json to v8.json: the same
// document less its documentation. After updating v8.json, run
//
//	go test ./internal/style -run TestMinSpec -update-min-spec
func TestMinSpec(t *testing.T) {
	want := minSpec(t)
	if *updateMinSpec {
		if err := os.WriteFile("specdata/v8.min.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(embeddedSpec, want) {
		t.Fatalf("specdata/v8.min.json (%d bytes) is not v8.json less its documentation (%d bytes); run: go test ./internal/style -run TestMinSpec -update-min-spec", len(embeddedSpec), len(want))
	}
	// Read as the full document is read, it is the full document less
	// its documentation, member for member.
	got, err := decodeSpecJSON(embeddedSpec)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := decodeJSON(fullSpec(t))
	if !reflect.DeepEqual(got, withoutDocs(full)) {
		t.Fatal("v8.min.json decodes to another document than v8.json less its documentation")
	}
	if n := len(fullSpec(t)); len(embeddedSpec)*4 > n {
		t.Errorf("v8.min.json is %d bytes, over a quarter of v8.json's %d", len(embeddedSpec), n)
	}
}
