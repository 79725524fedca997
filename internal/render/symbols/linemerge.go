package symbols

// Joining the pieces of a labelled line. Written from the behaviour the
// style specification and the render tests show (a street cut into
// pieces, every piece carrying the same name, is labelled as one line)
// and plain bookkeeping of shared end points; it follows no other
// renderer's code.

import (
	"strings"

	"github.com/paulmach/orb"
)

// mergeLines gives every line feature of a layer laid out along lines its
// lines (a copy of the feature's, buffer included, that may be extended),
// and joins, within one tile, the first line of features with the same
// text where one ends at the point the other starts. A feature whose line
// was joined onto another's is dropped; the rest keep their order. Other
// features, and features without text, pass through unchanged.
func mergeLines(shaped []*shapedSymbol) []*shapedSymbol {
	// end identifies a line end: the tile, the text, the point.
	type end struct {
		tile  [3]int
		label string
		at    orb.Point
	}
	heads := map[end]int{} // where a kept line starts -> its index
	tails := map[end]int{} // where a kept line ends -> its index
	dropped := make([]bool, len(shaped))
	var sb strings.Builder
	for i, ss := range shaped {
		f := ss.f
		if f.Kind != "LineString" {
			continue
		}
		src := f.Lines
		if src == nil {
			src = f.Parts
		}
		if len(src) == 0 {
			continue
		}
		// The first line is copied: it may grow, and the feature's
		// lines are the decoded tile's.
		ss.lines = make([][]orb.Point, len(src))
		copy(ss.lines, src)
		ss.lines[0] = append([]orb.Point(nil), src[0]...)
		sb.Reset()
		for _, s := range ss.sections {
			sb.WriteString(s.Text)
		}
		label := sb.String()
		line := ss.lines[0]
		if label == "" || len(line) < 2 {
			continue
		}
		head := end{f.Tile, label, line[0]}
		tail := end{f.Tile, label, line[len(line)-1]}
		before, hasBefore := tails[head] // a kept line ending where this starts
		after, hasAfter := heads[tail]   // a kept line starting where this ends
		switch {
		case hasBefore && hasAfter && before != after:
			// This piece bridges two kept lines: the second joins the
			// first through it and is dropped.
			a, b := shaped[before].lines[0], shaped[after].lines[0]
			joined := append(append(a, line[1:]...), b[1:]...)
			shaped[before].lines[0] = joined
			dropped[i], dropped[after] = true, true
			delete(tails, head)
			delete(heads, tail)
			tails[end{f.Tile, label, joined[len(joined)-1]}] = before
		case hasBefore:
			a := shaped[before].lines[0]
			shaped[before].lines[0] = append(a, line[1:]...)
			dropped[i] = true
			delete(tails, head)
			tails[tail] = before
		case hasAfter:
			b := shaped[after].lines[0]
			shaped[after].lines[0] = append(line[:len(line)-1:len(line)-1], b...)
			dropped[i] = true
			delete(heads, tail)
			heads[head] = after
		default:
			heads[head], tails[tail] = i, i
		}
	}
	out := shaped[:0]
	for i, ss := range shaped {
		if !dropped[i] {
			out = append(out, ss)
		}
	}
	return out
}
