package style

import (
	"slices"
	"testing"
)

func TestResources(t *testing.T) {
	doc := `{"version": 8, "sources": {}, "layers": [
	  {"id": "a", "type": "symbol", "source": "s", "layout": {
	    "text-font": ["Noto Sans Regular", "Open Sans Regular"],
	    "icon-image": ["match", ["get", "kind"], "capital", "star", "city", ["coalesce", ["image", "dot"], "ring"], "town"]}},
	  {"id": "b", "type": "symbol", "source": "s", "layout": {
	    "text-font": ["step", ["zoom"], ["literal", ["Noto Sans Bold"]], 5, ["literal", ["Noto Sans Regular"]]],
	    "icon-image": "{shield}-{ref_length}"}},
	  {"id": "c", "type": "symbol", "source": "s", "layout": {
	    "text-font": {"stops": [[0, ["Open Sans Italic"]]]},
	    "icon-image": ["case", ["has", "x"], "a-case", "b-default"]}},
	  {"id": "d", "type": "fill", "source": "s", "paint": {"fill-pattern": "hatch"}},
	  {"id": "e", "type": "symbol", "source": "s", "layout": {"icon-image": ["step", ["zoom"], "small", 10, "large"]}}
	]}`
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Resources()
	slices.Sort(r.Fonts)
	slices.Sort(r.Icons)
	if want := []string{"Noto Sans Bold", "Noto Sans Regular", "Open Sans Italic", "Open Sans Regular"}; !slices.Equal(r.Fonts, want) {
		t.Errorf("fonts = %q, want %q", r.Fonts, want)
	}
	if want := []string{"a-case", "b-default", "dot", "hatch", "large", "ring", "small", "star", "town"}; !slices.Equal(r.Icons, want) {
		t.Errorf("icons = %q, want %q", r.Icons, want)
	}
}
