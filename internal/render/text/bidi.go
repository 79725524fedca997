package text

import (
	"golang.org/x/text/unicode/bidi"
)

// The bidirectional algorithm (UAX #9) for labels. golang.org/x/text's
// unicode/bidi gives the character classes used here, but its Paragraph
// API only splits the text into runs in logical order with a direction: it
// exposes no embedding levels, so numbers inside right-to-left text cannot
// be told from left-to-right runs beside it, it does not reorder runs
// visually (rule L2), does not reset trailing white space (L1), recomputes
// the paragraph direction for each line, and mirrors brackets only. This
// file resolves the levels itself and reorders each line as ICU's ubidi
// does for GL JS's RTL text plugin: the paragraph direction comes from its
// first strong character (left-to-right when there is none), lines are
// broken on the logical text, and each line is then put in visual order
// with mirrored glyphs in right-to-left runs and the bidi controls removed.

// maxDepth is the deepest explicit embedding level (BD2).
const maxDepth = 125

// Bidi holds the resolved embedding levels of a text in logical order.
type Bidi struct {
	runes  []rune
	orig   []bidi.Class // the classes of the characters
	levels []uint8
	para   []uint8 // the paragraph level of each character
}

// NewBidi resolves the embedding levels of the text, split into paragraphs
// at paragraph separators, each paragraph's direction from its first strong
// character.
func NewBidi(rs []rune) *Bidi {
	b := &Bidi{runes: rs, orig: make([]bidi.Class, len(rs)), levels: make([]uint8, len(rs)), para: make([]uint8, len(rs))}
	for i, r := range rs {
		p, _ := bidi.LookupRune(r)
		b.orig[i] = p.Class()
	}
	start := 0
	for i := range rs {
		if b.orig[i] == bidi.B || i == len(rs)-1 {
			b.paragraph(start, i+1, -1)
			start = i + 1
		}
	}
	return b
}

// newBidiLevel resolves the text as one paragraph of the given level (0 or
// 1; -1 for the first strong character's).
func newBidiLevel(rs []rune, level int) *Bidi {
	b := &Bidi{runes: rs, orig: make([]bidi.Class, len(rs)), levels: make([]uint8, len(rs)), para: make([]uint8, len(rs))}
	for i, r := range rs {
		p, _ := bidi.LookupRune(r)
		b.orig[i] = p.Class()
	}
	if len(rs) > 0 {
		b.paragraph(0, len(rs), level)
	}
	return b
}

// HasRTL reports whether the text has any right-to-left level.
func (b *Bidi) HasRTL() bool {
	for i, l := range b.levels {
		if l%2 == 1 && !removed(b.orig[i]) {
			return true
		}
	}
	return false
}

// removed reports whether rule X9 removes characters of class c.
func removed(c bidi.Class) bool {
	switch c {
	case bidi.RLE, bidi.LRE, bidi.RLO, bidi.LRO, bidi.PDF, bidi.BN:
		return true
	}
	return false
}

func isIsolateInit(c bidi.Class) bool { return c == bidi.LRI || c == bidi.RLI || c == bidi.FSI }

// firstStrong returns the level a paragraph or FSI of text[start:end]
// takes from its first strong character (rules P2, P3), skipping isolates;
// def when there is none.
func (b *Bidi) firstStrong(start, end int, def uint8) uint8 {
	depth := 0
	for i := start; i < end; i++ {
		switch c := b.orig[i]; {
		case isIsolateInit(c):
			depth++
		case c == bidi.PDI:
			if depth == 0 {
				return def // the end of an FSI's isolate
			}
			depth--
		case depth > 0:
		case c == bidi.L:
			return 0
		case c == bidi.R || c == bidi.AL:
			return 1
		}
	}
	return def
}

// matchingPDI returns the index of the PDI closing the isolate initiator
// at i, or end.
func (b *Bidi) matchingPDI(i, end int) int {
	depth := 1
	for j := i + 1; j < end; j++ {
		switch c := b.orig[j]; {
		case isIsolateInit(c):
			depth++
		case c == bidi.PDI:
			depth--
			if depth == 0 {
				return j
			}
		case c == bidi.B:
			return end
		}
	}
	return end
}

type status struct {
	level    uint8
	override bidi.Class // ON for none, L or R
	isolate  bool
}

// paragraph resolves the levels of text[start:end].
func (b *Bidi) paragraph(start, end, level int) {
	pl := uint8(level)
	if level < 0 {
		pl = b.firstStrong(start, end, 0)
	}
	types := make([]bidi.Class, end-start)
	copy(types, b.orig[start:end])
	levels := b.levels[start:end]
	for i := start; i < end; i++ {
		b.para[i] = pl
	}
	// X1-X8: explicit levels and directions.
	stack := []status{{pl, bidi.ON, false}}
	overflowIsolates, overflowEmbeddings, validIsolates := 0, 0, 0
	for k := range types {
		i := start + k
		c := b.orig[i]
		top := stack[len(stack)-1]
		switch c {
		case bidi.RLE, bidi.LRE, bidi.RLO, bidi.LRO:
			levels[k] = top.level
			next := top.level + 1 | 1 // the least greater odd level
			if c == bidi.LRE || c == bidi.LRO {
				next = (top.level + 2) &^ 1 // the least greater even level
			}
			if next <= maxDepth && overflowIsolates == 0 && overflowEmbeddings == 0 {
				o := bidi.ON
				if c == bidi.RLO {
					o = bidi.R
				} else if c == bidi.LRO {
					o = bidi.L
				}
				stack = append(stack, status{next, o, false})
			} else if overflowIsolates == 0 {
				overflowEmbeddings++
			}
		case bidi.RLI, bidi.LRI, bidi.FSI:
			levels[k] = top.level
			if top.override != bidi.ON {
				types[k] = top.override
			}
			rtl := c == bidi.RLI
			if c == bidi.FSI {
				rtl = b.firstStrong(i+1, b.matchingPDI(i, end), 0) == 1
			}
			next := top.level + 1 | 1
			if !rtl {
				next = (top.level + 2) &^ 1
			}
			if next <= maxDepth && overflowIsolates == 0 && overflowEmbeddings == 0 {
				validIsolates++
				stack = append(stack, status{next, bidi.ON, true})
			} else {
				overflowIsolates++
			}
		case bidi.PDI:
			if overflowIsolates > 0 {
				overflowIsolates--
			} else if validIsolates > 0 {
				overflowEmbeddings = 0
				for !stack[len(stack)-1].isolate {
					stack = stack[:len(stack)-1]
				}
				stack = stack[:len(stack)-1]
				validIsolates--
			}
			top = stack[len(stack)-1]
			levels[k] = top.level
			if top.override != bidi.ON {
				types[k] = top.override
			}
		case bidi.PDF:
			levels[k] = top.level
			if overflowIsolates > 0 {
			} else if overflowEmbeddings > 0 {
				overflowEmbeddings--
			} else if !top.isolate && len(stack) >= 2 {
				stack = stack[:len(stack)-1]
			}
		case bidi.B:
			levels[k] = pl
		case bidi.BN:
			levels[k] = top.level
		default:
			levels[k] = top.level
			if top.override != bidi.ON {
				types[k] = top.override
			}
		}
	}
	// X10: isolating run sequences over the characters X9 keeps.
	for _, seq := range b.sequences(start, end, types, levels, pl) {
		seq.resolve(b, types, levels)
	}
	// Removed characters take the level of the character before them.
	for k := range types {
		if removed(b.orig[start+k]) {
			if k == 0 {
				levels[k] = pl
			} else {
				levels[k] = levels[k-1]
			}
		}
	}
}

// sequence is an isolating run sequence: indices into the paragraph with
// the classes of its start and end.
type sequence struct {
	idx      []int
	base     int // the paragraph's start in the text
	level    uint8
	sos, eos bidi.Class
}

func dirOf(level uint8) bidi.Class {
	if level%2 == 1 {
		return bidi.R
	}
	return bidi.L
}

// sequences splits the paragraph into level runs and chains them into
// isolating run sequences (BD13, X10).
func (b *Bidi) sequences(start, end int, types []bidi.Class, levels []uint8, pl uint8) []*sequence {
	var runs [][]int
	var cur []int
	for k := range types {
		if removed(b.orig[start+k]) {
			continue
		}
		if len(cur) > 0 && levels[cur[len(cur)-1]] != levels[k] {
			runs = append(runs, cur)
			cur = nil
		}
		cur = append(cur, k)
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	// runStart maps the first index of each level run to the run.
	runStart := map[int]int{}
	for ri, r := range runs {
		runStart[r[0]] = ri
	}
	used := make([]bool, len(runs))
	var seqs []*sequence
	for ri := range runs {
		if used[ri] {
			continue
		}
		var idx []int
		for r := ri; ; {
			used[r] = true
			idx = append(idx, runs[r]...)
			last := idx[len(idx)-1]
			if !isIsolateInit(b.orig[start+last]) {
				break
			}
			pdi := b.matchingPDI(start+last, end) - start
			nr, ok := runStart[pdi]
			if pdi >= end-start || !ok {
				break
			}
			r = nr
		}
		s := &sequence{idx: idx, base: start, level: levels[idx[0]]}
		// sos and eos from the levels of the neighbouring kept characters.
		prev := pl
		for k := idx[0] - 1; k >= 0; k-- {
			if !removed(b.orig[start+k]) {
				prev = levels[k]
				break
			}
		}
		next := pl
		last := idx[len(idx)-1]
		if !isIsolateInit(b.orig[start+last]) {
			for k := last + 1; k < end-start; k++ {
				if !removed(b.orig[start+k]) {
					next = levels[k]
					break
				}
			}
		}
		s.sos = dirOf(max(prev, s.level))
		s.eos = dirOf(max(next, s.level))
		seqs = append(seqs, s)
	}
	return seqs
}

// isNI reports whether c is a neutral or isolate formatting class (N1).
func isNI(c bidi.Class) bool {
	switch c {
	case bidi.B, bidi.S, bidi.WS, bidi.ON, bidi.LRI, bidi.RLI, bidi.FSI, bidi.PDI:
		return true
	}
	return false
}

// strongDir is the direction a resolved class counts as in N0-N2 (EN and AN
// count as R), ON for neutrals.
func strongDir(c bidi.Class) bidi.Class {
	switch c {
	case bidi.L:
		return bidi.L
	case bidi.R, bidi.AL, bidi.EN, bidi.AN:
		return bidi.R
	}
	return bidi.ON
}

// resolve applies the weak (W1-W7), bracket (N0), neutral (N1, N2) and
// implicit (I1, I2) rules to the sequence. types and levels are the
// paragraph's (indexed like s.idx).
func (s *sequence) resolve(b *Bidi, types []bidi.Class, levels []uint8) {
	n := len(s.idx)
	t := make([]bidi.Class, n)
	for j, k := range s.idx {
		t[j] = types[k]
	}
	// W1: marks take the class before them (ON after isolate controls).
	for j := range t {
		if t[j] == bidi.NSM {
			switch {
			case j == 0:
				t[j] = s.sos
			case isIsolateInit(t[j-1]) || t[j-1] == bidi.PDI:
				t[j] = bidi.ON
			default:
				t[j] = t[j-1]
			}
		}
	}
	// W2, W3: European numbers after Arabic letters are Arabic numbers.
	last := s.sos
	for j := range t {
		switch t[j] {
		case bidi.L, bidi.R, bidi.AL:
			last = t[j]
		case bidi.EN:
			if last == bidi.AL {
				t[j] = bidi.AN
			}
		}
	}
	for j := range t {
		if t[j] == bidi.AL {
			t[j] = bidi.R
		}
	}
	// W4: one separator between two numbers of a kind.
	for j := 1; j < n-1; j++ {
		switch {
		case t[j] == bidi.ES && t[j-1] == bidi.EN && t[j+1] == bidi.EN:
			t[j] = bidi.EN
		case t[j] == bidi.CS && t[j-1] == bidi.EN && t[j+1] == bidi.EN:
			t[j] = bidi.EN
		case t[j] == bidi.CS && t[j-1] == bidi.AN && t[j+1] == bidi.AN:
			t[j] = bidi.AN
		}
	}
	// W5: terminators next to European numbers.
	for j := 0; j < n; j++ {
		if t[j] != bidi.ET {
			continue
		}
		e := j
		for e < n && t[e] == bidi.ET {
			e++
		}
		if j > 0 && t[j-1] == bidi.EN || e < n && t[e] == bidi.EN {
			for k := j; k < e; k++ {
				t[k] = bidi.EN
			}
		}
		j = e - 1
	}
	// W6: remaining separators and terminators are neutral.
	for j := range t {
		if t[j] == bidi.ES || t[j] == bidi.ET || t[j] == bidi.CS {
			t[j] = bidi.ON
		}
	}
	// W7: European numbers in left-to-right context are L.
	last = s.sos
	for j := range t {
		switch t[j] {
		case bidi.L, bidi.R:
			last = t[j]
		case bidi.EN:
			if last == bidi.L {
				t[j] = bidi.L
			}
		}
	}
	s.brackets(b, t)
	// N1, N2: runs of neutrals between strong types of one direction take
	// it, the others the embedding direction.
	e := dirOf(s.level)
	for j := 0; j < n; j++ {
		if !isNI(t[j]) {
			continue
		}
		k := j
		for k < n && isNI(t[k]) {
			k++
		}
		before, after := s.sos, s.eos
		if j > 0 {
			before = strongDir(t[j-1])
		}
		if k < n {
			after = strongDir(t[k])
		}
		d := e
		if before == after {
			d = before
		}
		for m := j; m < k; m++ {
			t[m] = d
		}
		j = k - 1
	}
	// I1, I2.
	for j, k := range s.idx {
		l := s.level
		switch {
		case l%2 == 0 && t[j] == bidi.R:
			l++
		case l%2 == 0 && (t[j] == bidi.AN || t[j] == bidi.EN):
			l += 2
		case l%2 == 1 && (t[j] == bidi.L || t[j] == bidi.EN || t[j] == bidi.AN):
			l++
		}
		levels[k] = l
	}
}

// canonicalBracket maps the angle brackets with canonical equivalents to
// them (BD16).
func canonicalBracket(r rune) rune {
	switch r {
	case 0x2329:
		return 0x3008
	case 0x232A:
		return 0x3009
	}
	return r
}

// brackets applies rule N0 to the resolved classes t of the sequence.
func (s *sequence) brackets(b *Bidi, t []bidi.Class) {
	base := s.base
	type pair struct{ open, close int }
	var pairs []pair
	type opener struct {
		pos  int
		want rune
	}
	var stack []opener
	for j, k := range s.idx {
		if t[j] != bidi.ON {
			continue
		}
		r := b.runes[base+k]
		pb, ok := pairedBrackets[r]
		if !ok {
			continue
		}
		if pb.open {
			if len(stack) == 63 {
				break
			}
			stack = append(stack, opener{j, canonicalBracket(pb.pair)})
			continue
		}
		for m := len(stack) - 1; m >= 0; m-- {
			if stack[m].want == canonicalBracket(r) {
				pairs = append(pairs, pair{stack[m].pos, j})
				stack = stack[:m]
				break
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	// Process the pairs in the order of their openers.
	for i := 1; i < len(pairs); i++ {
		for j := i; j > 0 && pairs[j].open < pairs[j-1].open; j-- {
			pairs[j], pairs[j-1] = pairs[j-1], pairs[j]
		}
	}
	e := dirOf(s.level)
	for _, p := range pairs {
		found := bidi.ON
		for j := p.open + 1; j < p.close; j++ {
			d := strongDir(t[j])
			if d == e {
				found = e
				break
			}
			if d != bidi.ON {
				found = d
			}
		}
		if found == bidi.ON {
			continue
		}
		d := e
		if found != e {
			ctx := s.sos
			for j := p.open - 1; j >= 0; j-- {
				if c := strongDir(t[j]); c != bidi.ON {
					ctx = c
					break
				}
			}
			if ctx == found {
				d = found
			}
		}
		t[p.open], t[p.close] = d, d
		// Marks that followed a bracket take its new class.
		for _, at := range []int{p.open, p.close} {
			for j := at + 1; j < len(t) && b.orig[base+s.idx[j]] == bidi.NSM; j++ {
				t[j] = d
			}
		}
	}
}

// bidiControl reports whether r is a bidi control or zero-width joiner
// that the line in visual order leaves out (as GL JS's RTL plugin does:
// fonts may have visible glyphs for them).
func bidiControl(r rune) bool {
	return r == 0x061C || r >= 0x200C && r <= 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// Levels returns the levels of text[start:end] as a line (rule L1 applied:
// separators and the white space before them or at the end of the line
// take the paragraph level).
func (b *Bidi) Levels(start, end int) []uint8 {
	lv := make([]uint8, end-start)
	copy(lv, b.levels[start:end])
	trailing := true
	for i := end - 1; i >= start; i-- {
		c := b.orig[i]
		switch {
		case c == bidi.S || c == bidi.B:
			lv[i-start] = b.para[i]
			trailing = true
		case trailing && (c == bidi.WS || isIsolateInit(c) || c == bidi.PDI || removed(c)):
			lv[i-start] = b.para[i]
		default:
			trailing = false
		}
	}
	return lv
}

// Visual returns the indices of the characters of text[start:end] in
// visual order (rule L2), without the bidi controls, and whether each is
// at a right-to-left level, where it shows its mirrored glyph (L4).
func (b *Bidi) Visual(start, end int) (order []int, rtl []bool) {
	lv, all := b.reorder(start, end)
	order = all[:0]
	rtl = make([]bool, 0, len(all))
	for _, i := range all {
		if bidiControl(b.runes[i]) {
			continue
		}
		order = append(order, i)
		rtl = append(rtl, lv[i-start]%2 == 1)
	}
	return order, rtl
}

// reorder returns the line levels of text[start:end] and the indices of
// all its characters in visual order.
func (b *Bidi) reorder(start, end int) (lv []uint8, order []int) {
	lv = b.Levels(start, end)
	order = make([]int, len(lv))
	var hi, lowOdd uint8 = 0, 255
	for i, l := range lv {
		order[i] = start + i
		hi = max(hi, l)
		if l%2 == 1 {
			lowOdd = min(lowOdd, l)
		}
	}
	for l := hi; l >= lowOdd && l > 0; l-- {
		for i := 0; i < len(order); {
			if lv[order[i]-start] < l {
				i++
				continue
			}
			j := i
			for j < len(order) && lv[order[j]-start] >= l {
				j++
			}
			for a, z := i, j-1; a < z; a, z = a+1, z-1 {
				order[a], order[z] = order[z], order[a]
			}
			i = j
		}
	}
	return lv, order
}

// Mirror returns the mirrored glyph of r, or r when it has none.
func Mirror(r rune) rune {
	if m, ok := mirrors[r]; ok {
		return m
	}
	return r
}
