package changefeed

import (
	"strings"
	"testing"
)

func TestEncodeDecode(t *testing.T) {
	for _, ev := range []Event{
		{Kind: APIKey, ID: "0b7c6f1e-1d2a-4c3b-9e8f-000000000001", Node: "a1b2c3d4e5f60708"},
		{Kind: Tileset, ID: "", Node: "n"},
		{Kind: Map, ID: "city map", Node: "n"}, // the id is the rest: spaces kept
	} {
		got, err := Decode(ev.Encode())
		if err != nil || got != ev {
			t.Errorf("%+v: decoded %+v, %v", ev, got, err)
		}
	}
	for _, bad := range []string{"", "apikey", "apikey ", " n id", "apikey  id"} {
		if ev, err := Decode(bad); err == nil {
			t.Errorf("%q decoded as %+v, want an error", bad, ev)
		}
	}
}

func TestNodeIDs(t *testing.T) {
	a, b := NewNodeID(), NewNodeID()
	if a == b || len(a) != 16 || strings.ContainsAny(a, " ") {
		t.Errorf("node ids %q %q", a, b)
	}
}

// FuzzDecode: any payload decodes or is refused, and what decodes encodes
// back to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"apikey n id", "tileset n ", "", "  ", "map n a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev, err := Decode(s)
		if err != nil {
			return
		}
		if ev.Kind == "" || ev.Node == "" || strings.Contains(string(ev.Kind), " ") || strings.Contains(ev.Node, " ") {
			t.Fatalf("%q decoded as %+v", s, ev)
		}
		if ev.Encode() != s {
			t.Fatalf("%q round trip: %q", s, ev.Encode())
		}
	})
}
