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
		// Two steps. First the piece extends a kept line that ends where
		// it starts; the line holding the piece is then that one, or the
		// piece itself.
		holder := i
		if k, ok := tails[head]; ok {
			shaped[k].lines[0] = append(shaped[k].lines[0], line[1:]...)
			dropped[i] = true
			delete(tails, head)
			holder = k
		}
		// Then the holder takes in a kept line that starts where it now
		// ends. A line already kept survives the join: a new piece goes in
		// front of the kept line rather than the kept line behind it.
		if k, ok := heads[tail]; ok && k != holder {
			delete(heads, tail)
			next := shaped[k].lines[0]
			if holder == i {
				shaped[k].lines[0] = append(line[:len(line)-1:len(line)-1], next...)
				dropped[i] = true
				heads[head] = k
			} else {
				shaped[holder].lines[0] = append(shaped[holder].lines[0], next[1:]...)
				dropped[k] = true
				tails[end{f.Tile, label, next[len(next)-1]}] = holder
			}
			continue
		}
		if holder == i {
			heads[head] = i
		}
		tails[tail] = holder
	}
	out := shaped[:0]
	for i, ss := range shaped {
		if !dropped[i] {
			out = append(out, ss)
		}
	}
	return out
}
