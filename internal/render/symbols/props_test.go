package symbols

import (
	"reflect"
	"testing"

	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/render/text"
)

// TestShapeMemo checks that the memo returns what text.Shape returns,
// shapes a plain label once per text and options, and leaves labels it
// cannot key (images, several sections, vertical-align) to text.Shape.
func TestShapeMemo(t *testing.T) {
	calls := 0
	lookup := func(stack string, r rune) (text.Metrics, bool) {
		calls++
		return text.Metrics{Width: 10, Height: 17, Left: 1, Top: -7, Advance: 12}, true
	}
	plain := func(s string) []text.Section { return []text.Section{{Text: s, FontStack: "A"}} }
	center := text.Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5}
	left := text.Options{LineHeight: 24, HAlign: 0, VAlign: 0.5}
	half := 0.5
	tests := []struct {
		name     string
		sections []text.Section
		o        text.Options
		shaped   bool // text.Shape runs (the lookup is called)
	}{
		{"first", plain("12"), center, true},
		{"same text and options", plain("12"), center, false},
		{"other text", plain("14"), center, true},
		{"other options", plain("12"), left, true},
		{"other font", []text.Section{{Text: "12", FontStack: "B"}}, center, true},
		{"other scale", []text.Section{{Text: "12", FontStack: "A", Scale: 2}}, center, true},
		{"same again", plain("14"), center, false},
		{"vertical-align", []text.Section{{Text: "12", FontStack: "A", VAlign: &half}}, center, true},
		{"vertical-align again", []text.Section{{Text: "12", FontStack: "A", VAlign: &half}}, center, true},
		{"two sections", []text.Section{{Text: "1", FontStack: "A"}, {Text: "2", FontStack: "A", Tag: 1}}, center, true},
		{"first options again", plain("12"), left, false},
		{"first font again", []text.Section{{Text: "12", FontStack: "B"}}, center, false},
		{"two sections again", []text.Section{{Text: "1", FontStack: "A"}, {Text: "2", FontStack: "A", Tag: 1}}, center, true},
	}
	var sm shapeMemo
	for _, tc := range tests {
		calls = 0
		got := sm.shape(tc.sections, lookup, tc.o)
		if shaped := calls > 0; shaped != tc.shaped {
			t.Errorf("%s: shaped %v, want %v", tc.name, shaped, tc.shaped)
		}
		if want := text.Shape(tc.sections, lookup, tc.o); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: shaping %+v, want %+v", tc.name, got, want)
		}
	}
}

// TestSlab checks that a slab hands out distinct zeroed values, across
// blocks, and takes back only the last one handed out.
func TestSlab(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"one", 1},
		{"a block", slabBlock},
		{"past a block", slabBlock + 1},
		{"several blocks", 3*slabBlock + 5},
	}
	for _, tc := range tests {
		var s slab[[2]int]
		live := map[*[2]int]bool{}
		var prev *[2]int
		for i := range tc.n {
			p := s.new()
			if *p != [2]int{} {
				t.Fatalf("%s: value %d not zero: %v", tc.name, i, *p)
			}
			if live[p] {
				t.Fatalf("%s: value %d handed out twice", tc.name, i)
			}
			*p = [2]int{i, i}
			if i%3 == 2 {
				// Every third value is given back: the next is the same,
				// zeroed. Giving back an earlier one does nothing.
				if prev != nil {
					s.free(prev)
					if *prev == [2]int{} {
						t.Fatalf("%s: value %d: an earlier value was taken back", tc.name, i)
					}
				}
				s.free(p)
				if q := s.new(); q != p || *q != [2]int{} {
					t.Fatalf("%s: value %d: given back, then %p %v, want %p zeroed", tc.name, i, q, *q, p)
				}
				*p = [2]int{i, i}
			}
			live[p] = true
			prev = p
		}
	}
}

// TestGlyphMemo checks that the memo answers as the glyph set does and
// asks it once for each font stack and code point, across stacks.
func TestGlyphMemo(t *testing.T) {
	a, b := &glyphs.Glyph{ID: 'a'}, &glyphs.Glyph{ID: 'b'}
	calls := 0
	set := func(stack string, r rune) (*glyphs.Glyph, bool) {
		calls++
		switch {
		case stack == "A" && r == 'a':
			return a, true
		case stack == "B" && r == 'b':
			return b, true
		}
		return nil, false
	}
	tests := []struct {
		stack string
		r     rune
		want  *glyphs.Glyph
		asks  bool // the set is asked
	}{
		{"A", 'a', a, true},
		{"A", 'a', a, false},
		{"A", 'b', nil, true},
		{"A", 'b', nil, false},
		{"B", 'b', b, true},
		{"B", 'a', nil, true},
		{"A", 'a', a, false},
		{"B", 'b', b, false},
	}
	gm := glyphMemo{glyph: set}
	for i, tc := range tests {
		calls = 0
		got, ok := gm.get(tc.stack, tc.r)
		if got != tc.want || ok != (tc.want != nil) {
			t.Errorf("%d: %s %q: got %v, %v, want %v", i, tc.stack, tc.r, got, ok, tc.want)
		}
		if asked := calls > 0; asked != tc.asks {
			t.Errorf("%d: %s %q: asked the set %v, want %v", i, tc.stack, tc.r, asked, tc.asks)
		}
	}
}
