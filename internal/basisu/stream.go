package basisu

// Slice coding constants of the ETC1S specification (section 10).
const (
	endpointPredSyms      = 4*4*4*4 + 1 // 2 bits per block of a 2x2 group, and the repeat symbol
	endpointPredRepeat    = endpointPredSyms - 1
	endpointPredMinRepeat = 3
	endpointPredVLCBits   = 4

	selectorHistorySize  = 64 // the largest the format allows
	selectorRLEMinCount  = 3
	selectorRLECountSyms = 64 // selector_history_buf_rle_model's alphabet
	selectorRLEVLCBits   = 7
)

// Endpoint predictors of a block.
const (
	predLeft = iota
	predUp
	predUpLeft
	predDelta
)

// The four Huffman models of the slices.
const (
	modelEndpointPred = iota
	modelDeltaEndpoint
	modelSelector
	modelSelectorRLE
	sliceModels
)

// op is one item of a slice's bitstream: a Huffman coded symbol of a model
// (model >= 0), then raw bits or a VLC.
type op struct {
	model int
	sym   int
	raw   uint32 // raw bits after the symbol
	rawN  uint
	vlc   uint32 // a VLC after the symbol, when vlcBits > 0
	vlcN  uint
}

// sliceOps turns the codebook indices of one slice's blocks (raster order,
// bw by bh) into the slice's symbols. nEP and nSel are the codebook sizes.
func sliceOps(ep, sel []int, bw, bh, nEP, nSel int) []op {
	at := func(x, y int) int { return ep[y*bw+x] }
	valid := func(x, y, p int) bool {
		e := at(x, y)
		switch p {
		case predLeft:
			return x > 0 && at(x-1, y) == e
		case predUp:
			return y > 0 && at(x, y-1) == e
		case predUpLeft:
			return x > 0 && y > 0 && at(x-1, y-1) == e
		}
		return true
	}
	best := func(x, y int) int {
		for p := predLeft; p < predDelta; p++ {
			if valid(x, y, p) {
				return p
			}
		}
		return predDelta
	}
	// The 2x2 group predictor symbols, in the order the decoder reads them
	// (at the even block of each even row). A group repeats the previous
	// group's symbol when that symbol holds for its blocks (and sends no
	// delta a reuse could spare), which makes long runs of flat areas;
	// otherwise each block takes the first predictor that holds of left,
	// up, up-left, else a delta.
	members := [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}}
	preds := make([]int, bw*bh)
	var groups []int
	last := 0
	for y := 0; y < bh; y += 2 {
		for x := 0; x < bw; x += 2 {
			keep := true
			for k, m := range members {
				bx, by := x+m[0], y+m[1]
				if bx >= bw || by >= bh {
					continue
				}
				p := last >> (2 * k) & 3
				if !valid(bx, by, p) || (p == predDelta && best(bx, by) != predDelta) {
					keep = false
					break
				}
			}
			sym := last
			if !keep {
				sym = 0
				for k, m := range members {
					if bx, by := x+m[0], y+m[1]; bx < bw && by < bh {
						sym |= best(bx, by) << (2 * k)
					}
				}
			}
			for k, m := range members {
				if bx, by := x+m[0], y+m[1]; bx < bw && by < bh {
					preds[by*bw+bx] = sym >> (2 * k) & 3
				}
			}
			groups = append(groups, sym)
			last = sym
		}
	}
	var ops []op
	prevSym, run := 0, 0
	// groupOps[i] is what to write at group i: a symbol, a run, or nothing
	// (inside a run).
	groupOps := make([][]op, len(groups))
	for i := 0; i < len(groups); {
		if groups[i] == prevSym {
			run = 1
			for i+run < len(groups) && groups[i+run] == prevSym {
				run++
			}
			if run >= endpointPredMinRepeat {
				groupOps[i] = []op{{model: modelEndpointPred, sym: endpointPredRepeat, vlc: uint32(run - endpointPredMinRepeat), vlcN: endpointPredVLCBits}}
				i += run
				continue
			}
		}
		groupOps[i] = []op{{model: modelEndpointPred, sym: groups[i]}}
		prevSym = groups[i]
		i++
	}
	// Selector coding: the history buffer, mirrored from the decoder.
	hist := newApproxMTF(selectorHistorySize)
	selOps := make([][]op, len(sel))
	for i := 0; i < len(sel); {
		s := sel[i]
		if hist.values[0] == s {
			run := 1
			for i+run < len(sel) && sel[i+run] == s {
				run++
			}
			if run >= selectorRLEMinCount {
				o := op{model: modelSelector, sym: nSel + selectorHistorySize}
				if c := run - selectorRLEMinCount; c < selectorRLECountSyms-1 {
					selOps[i] = []op{o, {model: modelSelectorRLE, sym: c}}
				} else {
					selOps[i] = []op{o, {model: modelSelectorRLE, sym: selectorRLECountSyms - 1, vlc: uint32(c), vlcN: selectorRLEVLCBits}}
				}
				i += run
				continue
			}
		}
		if h := hist.find(s); h >= 0 {
			selOps[i] = []op{{model: modelSelector, sym: nSel + h}}
			hist.use(h)
		} else {
			selOps[i] = []op{{model: modelSelector, sym: s}}
			hist.add(s)
		}
		i++
	}
	prevEP := 0
	g := 0
	for y := 0; y < bh; y++ {
		for x := 0; x < bw; x++ {
			if x%2 == 0 && y%2 == 0 {
				ops = append(ops, groupOps[g]...)
				g++
			}
			e := at(x, y)
			if preds[y*bw+x] == predDelta {
				ops = append(ops, op{model: modelDeltaEndpoint, sym: (e - prevEP + nEP) % nEP})
			}
			prevEP = e
			ops = append(ops, selOps[y*bw+x]...)
		}
	}
	return ops
}

// approxMTF is the selector history buffer of the specification (10.1).
type approxMTF struct {
	values []int
	rover  int
}

func newApproxMTF(n int) *approxMTF {
	return &approxMTF{values: make([]int, n), rover: n / 2}
}

func (m *approxMTF) add(v int) {
	m.values[m.rover] = v
	m.rover++
	if m.rover == len(m.values) {
		m.rover = len(m.values) / 2
	}
}

func (m *approxMTF) use(i int) {
	if i != 0 {
		m.values[i/2], m.values[i] = m.values[i], m.values[i/2]
	}
}

// find returns the first index holding v, or -1.
func (m *approxMTF) find(v int) int {
	for i, x := range m.values {
		if x == v {
			return i
		}
	}
	return -1
}

// writeOps writes ops with the models' codes.
func writeOps(w *bitWriter, ops []op, codes []huffCode) {
	for _, o := range ops {
		codes[o.model].write(w, o.sym)
		if o.rawN > 0 {
			w.put(o.raw, o.rawN)
		}
		if o.vlcN > 0 {
			w.putVLC(o.vlc, o.vlcN)
		}
	}
}

// colorModel returns which of the three colour delta models codes a
// component whose previous value was prev.
func colorModel(prev uint8) int {
	switch {
	case prev <= 9:
		return 0
	case prev <= 21:
		return 1
	}
	return 2
}

// writeEndpoints writes the endpoint codebook (section 7).
func writeEndpoints(eps []endpoint) []byte {
	type sym struct{ model, s int }
	var syms []sym
	prev := [3]uint8{16, 16, 16}
	prevT := uint8(0)
	freq := [4][]int{make([]int, 32), make([]int, 32), make([]int, 32), make([]int, 8)}
	for _, e := range eps {
		s := int(e.t-prevT) & 7
		syms = append(syms, sym{3, s})
		freq[3][s]++
		prevT = e.t
		for ch := 0; ch < 3; ch++ {
			m := colorModel(prev[ch])
			d := int(e.c[ch]-prev[ch]) & 31
			syms = append(syms, sym{m, d})
			freq[m][d]++
			prev[ch] = e.c[ch]
		}
	}
	var w bitWriter
	var codes [4]huffCode
	for m := range codes {
		codes[m] = buildCode(freq[m])
		writeHuffTable(&w, codes[m].lengths)
	}
	w.put(0, 1) // not greyscale
	for _, s := range syms {
		codes[s.model].write(&w, s.s)
	}
	return w.bytes()
}

// writeSelectors writes the selector codebook (section 8), DPCM coded.
func writeSelectors(sels []selector) []byte {
	rows := func(s selector) [4]uint8 {
		var r [4]uint8
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				r[y] |= s[y*4+x] << (2 * x)
			}
		}
		return r
	}
	freq := make([]int, 256)
	var prev [4]uint8
	for i, s := range sels {
		r := rows(s)
		if i > 0 {
			for j := range r {
				freq[r[j]^prev[j]]++
			}
		}
		prev = r
	}
	var w bitWriter
	w.put(0, 1) // no global codebook
	w.put(0, 1) // no hybrid codebook
	w.put(0, 1) // not raw
	code := buildCode(freq)
	writeHuffTable(&w, code.lengths)
	for i, s := range sels {
		r := rows(s)
		for j := range r {
			if i == 0 {
				w.put(uint32(r[j]), 8)
			} else {
				code.write(&w, int(r[j]^prev[j]))
			}
		}
		prev = r
	}
	return w.bytes()
}

// sliceCodes builds the four slice models' codes from all slices' ops and
// writes the tables section (section 9).
func sliceCodes(slices [][]op, nEP, nSel int) ([]huffCode, []byte) {
	sizes := [sliceModels]int{endpointPredSyms, nEP, nSel + selectorHistorySize + 1, selectorRLECountSyms}
	freq := make([][]int, sliceModels)
	for m := range freq {
		freq[m] = make([]int, sizes[m])
	}
	for _, ops := range slices {
		for _, o := range ops {
			freq[o.model][o.sym]++
		}
	}
	codes := make([]huffCode, sliceModels)
	var w bitWriter
	for m := range codes {
		codes[m] = buildCode(freq[m])
		writeHuffTable(&w, codes[m].lengths)
	}
	w.put(selectorHistorySize, 13)
	return codes, w.bytes()
}
