package basisu

import (
	"errors"
	"fmt"
)

// This file holds a decoder of the BasisLZ streams, written from the
// specification independently of the encoder, for the round-trip tests.

var errStream = errors.New("bad stream")

// testHuff is a canonical Huffman decoder.
type testHuff struct {
	lengths []uint8
	codes   map[[2]uint32]int // (length, code read first bit first) -> symbol
}

func newTestHuff(lengths []uint8) (testHuff, error) {
	h := testHuff{lengths: lengths, codes: map[[2]uint32]int{}}
	// RFC 1951 3.2.2.
	var blCount [18]uint32
	for _, l := range lengths {
		if l > 16 {
			return h, fmt.Errorf("%w: code length %d", errStream, l)
		}
		if l > 0 {
			blCount[l]++
		}
	}
	var next [18]uint32
	code := uint32(0)
	for bits := 1; bits <= 16; bits++ {
		code = (code + blCount[bits-1]) << 1
		next[bits] = code
	}
	for s, l := range lengths {
		if l > 0 {
			h.codes[[2]uint32{uint32(l), next[l]}] = s
			next[l]++
		}
	}
	return h, nil
}

func (h testHuff) decode(r *bitReader) (int, error) {
	code := uint32(0)
	for l := uint32(1); l <= 16; l++ {
		code = code<<1 | r.get(1)
		if s, ok := h.codes[[2]uint32{l, code}]; ok {
			return s, nil
		}
		if r.overrun() {
			break
		}
	}
	return 0, fmt.Errorf("%w: no code", errStream)
}

// readHuffTable reads a compressed Huffman table (section 6).
func readHuffTable(r *bitReader) (testHuff, error) {
	total := int(r.get(14))
	n := int(r.get(5))
	if total == 0 || n == 0 || n > codeLenSyms {
		return testHuff{}, fmt.Errorf("%w: table header %d %d", errStream, total, n)
	}
	cl := make([]uint8, codeLenSyms)
	for _, s := range codeLenOrder[:n] {
		cl[s] = uint8(r.get(3))
	}
	clh, err := newTestHuff(cl)
	if err != nil {
		return testHuff{}, err
	}
	var lengths []uint8
	for len(lengths) < total {
		s, err := clh.decode(r)
		if err != nil {
			return testHuff{}, err
		}
		switch {
		case s <= 16:
			lengths = append(lengths, uint8(s))
		case s == smallZeroRun || s == bigZeroRun:
			var c int
			if s == bigZeroRun {
				c = int(r.get(7)) + 11
			} else {
				c = int(r.get(3)) + 3
			}
			lengths = append(lengths, make([]uint8, c)...)
		default:
			if len(lengths) == 0 || lengths[len(lengths)-1] == 0 {
				return testHuff{}, fmt.Errorf("%w: repeat without a length", errStream)
			}
			var c int
			if s == bigRepeat {
				c = int(r.get(7)) + 7
			} else {
				c = int(r.get(2)) + 3
			}
			for ; c > 0; c-- {
				lengths = append(lengths, lengths[len(lengths)-1])
			}
		}
	}
	if len(lengths) != total {
		return testHuff{}, fmt.Errorf("%w: %d lengths for %d symbols", errStream, len(lengths), total)
	}
	return newTestHuff(lengths)
}

func readVLC(r *bitReader, chunk uint) int {
	v, ofs := 0, uint(0)
	for ofs < 32 {
		s := r.get(chunk + 1)
		v |= int(s&(1<<chunk-1)) << ofs
		ofs += chunk
		if s&(1<<chunk) == 0 {
			break
		}
	}
	return v
}

// decodeEndpoints reads an endpoint codebook (section 7).
func decodeEndpoints(data []byte, n int) ([]endpoint, error) {
	r := &bitReader{buf: data}
	var models [4]testHuff
	for i := range models {
		h, err := readHuffTable(r)
		if err != nil {
			return nil, err
		}
		models[i] = h
	}
	grey := r.get(1) == 1
	prev := [3]int{16, 16, 16}
	prevT := 0
	out := make([]endpoint, n)
	for i := range out {
		d, err := models[3].decode(r)
		if err != nil {
			return nil, err
		}
		prevT = (prevT + d) & 7
		out[i].t = uint8(prevT)
		chans := 3
		if grey {
			chans = 1
		}
		for c := 0; c < chans; c++ {
			m := 2
			if prev[c] <= 9 {
				m = 0
			} else if prev[c] <= 21 {
				m = 1
			}
			d, err := models[m].decode(r)
			if err != nil {
				return nil, err
			}
			prev[c] = (prev[c] + d) & 31
			out[i].c[c] = uint8(prev[c])
		}
		if grey {
			out[i].c[1], out[i].c[2] = out[i].c[0], out[i].c[0]
		}
	}
	if r.overrun() {
		return nil, fmt.Errorf("%w: endpoints past the end", errStream)
	}
	return out, nil
}

// decodeSelectors reads a selector codebook (section 8).
func decodeSelectors(data []byte, n int) ([]selector, error) {
	r := &bitReader{buf: data}
	if r.get(1) != 0 || r.get(1) != 0 {
		return nil, fmt.Errorf("%w: global codebooks", errStream)
	}
	raw := r.get(1) == 1
	var h testHuff
	if !raw {
		var err error
		if h, err = readHuffTable(r); err != nil {
			return nil, err
		}
	}
	out := make([]selector, n)
	var prev [4]int
	for i := range out {
		for j := 0; j < 4; j++ {
			var b int
			if raw || i == 0 {
				b = int(r.get(8))
			} else {
				d, err := h.decode(r)
				if err != nil {
					return nil, err
				}
				b = d ^ prev[j]
			}
			prev[j] = b
			for k := 0; k < 4; k++ {
				out[i][j*4+k] = uint8(b >> (2 * k) & 3)
			}
		}
	}
	if r.overrun() {
		return nil, fmt.Errorf("%w: selectors past the end", errStream)
	}
	return out, nil
}

// testTables is the decoded tables section (section 9).
type testTables struct {
	models  [4]testHuff
	histLen int
}

func decodeTables(data []byte) (testTables, error) {
	r := &bitReader{buf: data}
	var t testTables
	for i := range t.models {
		h, err := readHuffTable(r)
		if err != nil {
			return t, err
		}
		t.models[i] = h
	}
	t.histLen = int(r.get(13))
	if r.overrun() {
		return t, fmt.Errorf("%w: tables past the end", errStream)
	}
	return t, nil
}

// decodeSlice reads a slice's blocks (section 10.3, not video) and returns
// their endpoint and selector indices.
func decodeSlice(data []byte, t testTables, bw, bh, nEP, nSel int) (ep, sel []int, err error) {
	r := &bitReader{buf: data}
	type pred struct{ ep, bits int }
	preds := [2][]pred{make([]pred, bw), make([]pred, bw)}
	hist := newApproxMTF(t.histLen)
	rleSym := nSel + t.histLen
	curRLE, curBits, prevSym, repeat, prevEP := 0, 0, 0, 0, 0
	ep, sel = make([]int, bw*bh), make([]int, bw*bh)
	for by := 0; by < bh; by++ {
		cur := by & 1
		for bx := 0; bx < bw; bx++ {
			if bx&1 == 0 {
				if by&1 == 0 {
					if repeat > 0 {
						repeat--
						curBits = prevSym
					} else {
						s, err := t.models[modelEndpointPred].decode(r)
						if err != nil {
							return nil, nil, err
						}
						if s == endpointPredRepeat {
							repeat = readVLC(r, endpointPredVLCBits) + endpointPredMinRepeat - 1
							curBits = prevSym
						} else {
							curBits, prevSym = s, s
						}
					}
					preds[cur^1][bx].bits = curBits >> 4
				} else {
					curBits = preds[cur][bx].bits
				}
			}
			p := curBits & 3
			curBits >>= 2
			var e int
			switch p {
			case predLeft:
				if bx == 0 {
					return nil, nil, fmt.Errorf("%w: left predictor at column 0", errStream)
				}
				e = prevEP
			case predUp:
				if by == 0 {
					return nil, nil, fmt.Errorf("%w: up predictor at row 0", errStream)
				}
				e = preds[cur^1][bx].ep
			case predUpLeft:
				if bx == 0 || by == 0 {
					return nil, nil, fmt.Errorf("%w: up-left predictor on the edge", errStream)
				}
				e = preds[cur^1][bx-1].ep
			default:
				d, err := t.models[modelDeltaEndpoint].decode(r)
				if err != nil {
					return nil, nil, err
				}
				e = d + prevEP
				if e >= nEP {
					e -= nEP
				}
			}
			preds[cur][bx].ep = e
			prevEP = e
			var s int
			if curRLE > 0 {
				curRLE--
				s = nSel
			} else {
				s, err = t.models[modelSelector].decode(r)
				if err != nil {
					return nil, nil, err
				}
				if s == rleSym {
					rs, err := t.models[modelSelectorRLE].decode(r)
					if err != nil {
						return nil, nil, err
					}
					if rs == selectorRLECountSyms-1 {
						curRLE = readVLC(r, selectorRLEVLCBits) + selectorRLEMinCount
					} else {
						curRLE = rs + selectorRLEMinCount
					}
					s = nSel
					curRLE--
				}
			}
			si := s
			if s >= nSel {
				h := s - nSel
				if h >= t.histLen {
					return nil, nil, fmt.Errorf("%w: history index %d", errStream, h)
				}
				si = hist.values[h]
				hist.use(h)
			} else {
				hist.add(s)
			}
			if e >= nEP || si >= nSel {
				return nil, nil, fmt.Errorf("%w: index out of range", errStream)
			}
			ep[by*bw+bx], sel[by*bw+bx] = e, si
		}
	}
	if r.overrun() {
		return nil, nil, fmt.Errorf("%w: slice past the end", errStream)
	}
	return ep, sel, nil
}
