package basisu

import (
	"container/heap"
	"sort"
)

// maxCodeLen is the longest Huffman code the format allows.
const maxCodeLen = 16

// maxCodeLenCodeLen is the longest code of the code-length alphabet (its
// lengths are sent in 3 bits).
const maxCodeLenCodeLen = 7

// Symbols of the code-length alphabet beyond the lengths 0..16.
const (
	smallZeroRun = 17 // 3..10 zeros, 3 extra bits
	bigZeroRun   = 18 // 11..138 zeros, 7 extra bits
	smallRepeat  = 19 // 3..6 repeats of the previous length, 2 extra bits
	bigRepeat    = 20 // 7..134 repeats, 7 extra bits
	codeLenSyms  = 21
)

// codeLenOrder is the order in which the code-length alphabet's own code
// lengths are sent.
var codeLenOrder = [codeLenSyms]int{17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16}

// huffItem is a node of the Huffman construction heap.
type huffItem struct {
	weight int
	order  int // breaks ties so that the lengths do not depend on heap order
	sym    int // leaf symbol, or -1
	kids   [2]int
}

type huffHeap struct {
	items []huffItem
	idx   []int
}

func (h *huffHeap) Len() int { return len(h.idx) }
func (h *huffHeap) Less(i, j int) bool {
	a, b := h.items[h.idx[i]], h.items[h.idx[j]]
	if a.weight != b.weight {
		return a.weight < b.weight
	}
	return a.order < b.order
}
func (h *huffHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *huffHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *huffHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// codeLengths returns Huffman code lengths, at most maxLen bits, for the
// symbol frequencies freq. At least two symbols get a code (a symbol with no
// use is given one when fewer than two are used), so that the code is always
// complete, as canonical decoders expect.
func codeLengths(freq []int, maxLen int) []uint8 {
	f := append([]int(nil), freq...)
	used := 0
	for _, v := range f {
		if v > 0 {
			used++
		}
	}
	for i := 0; used < 2 && i < len(f); i++ {
		if f[i] == 0 {
			f[i] = 1
			used++
		}
	}
	for {
		l := huffmanLengths(f)
		longest := 0
		for _, v := range l {
			longest = max(longest, int(v))
		}
		if longest <= maxLen {
			return l
		}
		// Too deep: flatten the distribution and build again.
		for i, v := range f {
			if v > 0 {
				f[i] = (v + 1) / 2
			}
		}
	}
}

// huffmanLengths builds an unlimited Huffman code for the used symbols of f.
func huffmanLengths(f []int) []uint8 {
	lengths := make([]uint8, len(f))
	h := &huffHeap{}
	for s, v := range f {
		if v > 0 {
			h.items = append(h.items, huffItem{weight: v, order: len(h.items), sym: s})
			h.idx = append(h.idx, len(h.items)-1)
		}
	}
	if len(h.idx) == 1 {
		lengths[h.items[0].sym] = 1
		return lengths
	}
	heap.Init(h)
	for h.Len() > 1 {
		a := heap.Pop(h).(int)
		b := heap.Pop(h).(int)
		h.items = append(h.items, huffItem{weight: h.items[a].weight + h.items[b].weight, order: len(h.items), sym: -1, kids: [2]int{a, b}})
		heap.Push(h, len(h.items)-1)
	}
	var walk func(n, depth int)
	walk = func(n, depth int) {
		it := h.items[n]
		if it.sym >= 0 {
			lengths[it.sym] = uint8(depth)
			return
		}
		walk(it.kids[0], depth+1)
		walk(it.kids[1], depth+1)
	}
	walk(h.idx[0], 0)
	return lengths
}

// huffCode is a canonical Huffman code: the lengths and, per symbol, its
// code bit-reversed so that it can be written least significant bit first.
type huffCode struct {
	lengths []uint8
	codes   []uint32
}

// newHuffCode builds the canonical code (as in Deflate, RFC 1951 3.2.2) of
// the lengths.
func newHuffCode(lengths []uint8) huffCode {
	var count [maxCodeLen + 2]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	var next [maxCodeLen + 2]uint32
	code := uint32(0)
	for bits := 1; bits <= maxCodeLen+1; bits++ {
		code = (code + uint32(count[bits-1])) << 1
		next[bits] = code
	}
	c := huffCode{lengths: lengths, codes: make([]uint32, len(lengths))}
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		c.codes[s] = reverseBits(next[l], uint(l))
		next[l]++
	}
	return c
}

// reverseBits reverses the n low bits of v.
func reverseBits(v uint32, n uint) uint32 {
	r := uint32(0)
	for i := uint(0); i < n; i++ {
		r = r<<1 | v>>i&1
	}
	return r
}

// write writes symbol s, which must have a code.
func (c huffCode) write(w *bitWriter, s int) {
	w.put(c.codes[s], uint(c.lengths[s]))
}

// clSym is one symbol of a compressed code-length table with its extra
// bits.
type clSym struct {
	sym   int
	extra uint32
	n     uint
}

// runKind describes the two run symbols of zeros or of repeats: the small
// one covers 3 to smallMax items, the big one bigMin to bigMax.
type runKind struct {
	small, big         int
	smallMax           int
	bigMin, bigMax     int
	smallBits, bigBits uint
}

var (
	zeroRuns   = runKind{smallZeroRun, bigZeroRun, 10, 11, 138, 3, 7}
	repeatRuns = runKind{smallRepeat, bigRepeat, 6, 7, 134, 2, 7}
)

// rleLengths turns code lengths into the code-length alphabet: literal
// lengths, runs of zeros and repeats of the previous length.
func rleLengths(lengths []uint8) []clSym {
	var out []clSym
	for i := 0; i < len(lengths); {
		l := lengths[i]
		run := 1
		for i+run < len(lengths) && lengths[i+run] == l {
			run++
		}
		i += run
		kind := repeatRuns
		if l == 0 {
			kind = zeroRuns
		} else {
			out = append(out, clSym{sym: int(l)})
			run--
		}
		for run >= 3 {
			n := min(run, kind.smallMax)
			if run >= kind.bigMin {
				n = min(run, kind.bigMax)
				out = append(out, clSym{kind.big, uint32(n - kind.bigMin), kind.bigBits})
			} else {
				out = append(out, clSym{kind.small, uint32(n - 3), kind.smallBits})
			}
			run -= n
		}
		for ; run > 0; run-- {
			out = append(out, clSym{sym: int(l)})
		}
	}
	return out
}

// writeHuffTable writes a Huffman table's code lengths in the compressed
// form of the .basis specification (section 6): the symbol count, the
// code-length code's lengths in codeLenOrder, then the run-length coded
// lengths.
func writeHuffTable(w *bitWriter, lengths []uint8) {
	syms := rleLengths(lengths)
	freq := make([]int, codeLenSyms)
	for _, s := range syms {
		freq[s.sym]++
	}
	cl := codeLengths(freq, maxCodeLenCodeLen)
	n := 0
	for i, s := range codeLenOrder {
		if cl[s] != 0 {
			n = i + 1
		}
	}
	w.put(uint32(len(lengths)), 14)
	w.put(uint32(n), 5)
	for _, s := range codeLenOrder[:n] {
		w.put(uint32(cl[s]), 3)
	}
	code := newHuffCode(cl)
	for _, s := range syms {
		code.write(w, s.sym)
		w.put(s.extra, s.n)
	}
}

// buildCode returns the length-limited canonical code for freq.
func buildCode(freq []int) huffCode {
	return newHuffCode(codeLengths(freq, maxCodeLen))
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[K ~uint32 | ~uint64 | ~int](m map[K]int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
