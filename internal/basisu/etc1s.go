package basisu

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// intenTables are the ETC1 intensity modifier tables, indexed by the table
// number and the selector in increasing order of modifier (the order the
// ETC1S codebooks use).
var intenTables = [8][4]int32{
	{-8, -2, 2, 8},
	{-17, -5, 5, 17},
	{-29, -9, 9, 29},
	{-42, -13, 13, 42},
	{-60, -18, 18, 60},
	{-80, -24, 24, 80},
	{-106, -33, 33, 106},
	{-183, -47, 47, 183},
}

// block is the pixels of one 4x4 block, row by row: red, green, blue.
type block [16][3]uint8

// endpoint is an ETC1S block endpoint: a 5:5:5 base colour and an intensity
// table.
type endpoint struct {
	c [3]uint8 // 0..31
	t uint8    // 0..7
}

// key packs e into an integer (for maps and sorting).
func (e endpoint) key() uint32 {
	return uint32(e.c[0])<<13 | uint32(e.c[1])<<8 | uint32(e.c[2])<<3 | uint32(e.t)
}

func endpointFromKey(k uint32) endpoint {
	return endpoint{c: [3]uint8{uint8(k >> 13 & 31), uint8(k >> 8 & 31), uint8(k >> 3 & 31)}, t: uint8(k & 7)}
}

// expand5 widens a 5-bit colour component to 8 bits.
func expand5(c uint8) int32 { return int32(c)<<3 | int32(c)>>2 }

// colors returns the four colours the endpoint can give a pixel, by
// selector.
func (e endpoint) colors() [4][3]int32 {
	var out [4][3]int32
	for s := 0; s < 4; s++ {
		for ch := 0; ch < 3; ch++ {
			out[s][ch] = min(255, max(0, expand5(e.c[ch])+intenTables[e.t][s]))
		}
	}
	return out
}

// vector places e in a 4-D space (base colour, table spread) in which
// nearby endpoints code similar pixels.
func (e endpoint) vector() [4]float64 {
	return [4]float64{float64(expand5(e.c[0])), float64(expand5(e.c[1])), float64(expand5(e.c[2])), 0.5 * float64(intenTables[e.t][3])}
}

// selErrors returns, per pixel of b, the squared error of each selector
// under e.
func selErrors(b *block, e endpoint) [16][4]int32 {
	cols := e.colors()
	var out [16][4]int32
	for i := range b {
		for s := 0; s < 4; s++ {
			var d int32
			for ch := 0; ch < 3; ch++ {
				v := int32(b[i][ch]) - cols[s][ch]
				d += v * v
			}
			out[i][s] = d
		}
	}
	return out
}

// bestSelectors returns the selectors that fit b best under e and the
// block's squared error.
func bestSelectors(b *block, e endpoint) (selector, int32) {
	errs := selErrors(b, e)
	var sel selector
	var total int32
	for i := range errs {
		best := 0
		for s := 1; s < 4; s++ {
			if errs[i][s] < errs[i][best] {
				best = s
			}
		}
		sel[i] = uint8(best)
		total += errs[i][best]
	}
	return sel, total
}

// bestEndpoint searches the endpoint that codes b with the least error:
// every table, and base colours around the block's mean.
func bestEndpoint(b *block) endpoint {
	var sum [3]int32
	for i := range b {
		for ch := 0; ch < 3; ch++ {
			sum[ch] += int32(b[i][ch])
		}
	}
	var q [3]int32
	for ch := 0; ch < 3; ch++ {
		q[ch] = (sum[ch]*31 + 255*8) / (255 * 16)
	}
	best, bestErr := endpoint{}, int32(math.MaxInt32)
	// First every table on the mean's colour, then the colours around it
	// on the two tables that did best.
	var errs [8]int32
	c0 := [3]uint8{uint8(q[0]), uint8(q[1]), uint8(q[2])}
	for t := range errs {
		_, errs[t] = bestSelectors(b, endpoint{c: c0, t: uint8(t)})
	}
	t1, t2 := 0, 1
	if errs[t2] < errs[t1] {
		t1, t2 = t2, t1
	}
	for t := 2; t < 8; t++ {
		switch {
		case errs[t] < errs[t1]:
			t1, t2 = t, t1
		case errs[t] < errs[t2]:
			t2 = t
		}
	}
	// The mean's colour, one step along each axis, and one step of grey.
	steps := [...][3]int32{{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}, {-1, -1, -1}, {1, 1, 1}}
	for _, t := range []int{t1, t2} {
		for _, d := range steps {
			r, g, bl := q[0]+d[0], q[1]+d[1], q[2]+d[2]
			if r < 0 || g < 0 || bl < 0 || r > 31 || g > 31 || bl > 31 {
				continue
			}
			e := endpoint{c: [3]uint8{uint8(r), uint8(g), uint8(bl)}, t: uint8(t)}
			if _, err := bestSelectors(b, e); err < bestErr {
				best, bestErr = e, err
			}
		}
	}
	return best
}

// selector is the 2-bit selectors of a block's pixels, row by row.
type selector [16]uint8

func (s selector) key() uint32 {
	var k uint32
	for i, v := range s {
		k |= uint32(v) << (2 * i)
	}
	return k
}

func selectorFromKey(k uint32) selector {
	var s selector
	for i := range s {
		s[i] = uint8(k >> (2 * i) & 3)
	}
	return s
}

// selWeights places selectors on a line by their modifiers.
var selWeights = [4]float64{-3, -1, 1, 3}

// kmeans clusters the weighted points into at most k centroids: farthest
// point seeding (the heaviest point first), then iters rounds of Lloyd's
// algorithm. seeds, if any, are the first centroids.
func kmeans(points [][]float64, weights []float64, k, iters int, seeds [][]float64) [][]float64 {
	if len(points) <= k {
		return points
	}
	dim := len(points[0])
	dist := func(a, b []float64) float64 {
		var d float64
		for i := range a {
			v := a[i] - b[i]
			d += v * v
		}
		return d
	}
	cents := append([][]float64(nil), seeds...)
	if len(cents) == 0 {
		h := 0
		for i, w := range weights {
			if w > weights[h] {
				h = i
			}
		}
		cents = append(cents, points[h])
	}
	near := make([]float64, len(points))
	for i, p := range points {
		near[i] = math.Inf(1)
		for _, c := range cents {
			near[i] = min(near[i], dist(p, c))
		}
	}
	for len(cents) < k {
		far, farV := -1, 0.0
		for i := range points {
			if v := near[i] * weights[i]; v > farV {
				far, farV = i, v
			}
		}
		if far < 0 {
			break
		}
		c := points[far]
		cents = append(cents, c)
		for i, p := range points {
			near[i] = min(near[i], dist(p, c))
		}
	}
	assign := make([]int, len(points))
	for it := 0; it < iters; it++ {
		parallel(len(points), func(i int) {
			best, bd := 0, math.Inf(1)
			for j, c := range cents {
				if d := dist(points[i], c); d < bd {
					best, bd = j, d
				}
			}
			assign[i] = best
		})
		sums := make([][]float64, len(cents))
		tot := make([]float64, len(cents))
		for j := range sums {
			sums[j] = make([]float64, dim)
		}
		for i, p := range points {
			j := assign[i]
			for d := range p {
				sums[j][d] += p[d] * weights[i]
			}
			tot[j] += weights[i]
		}
		for j := range cents {
			if tot[j] == 0 {
				continue
			}
			c := make([]float64, dim)
			for d := range c {
				c[d] = sums[j][d] / tot[j]
			}
			cents[j] = c
		}
	}
	return cents
}

// codebooks is the result of vector quantisation: the two codebooks and,
// per block, the entries it uses.
type codebooks struct {
	endpoints []endpoint
	selectors []selector
	epIndex   []int // per block
	selIndex  []int // per block
}

// quantize builds the codebooks for blocks, with at most maxEP endpoints
// and maxSel selectors.
func quantize(blocks []block, maxEP, maxSel int) codebooks {
	// Each block's own best endpoint, searched once per distinct block (a
	// map repeats its flat areas, road and label patterns), on every core.
	uniq := map[block]int{}
	var distinct []int // a block of each content
	owner := make([]int, len(blocks))
	for i := range blocks {
		j, ok := uniq[blocks[i]]
		if !ok {
			j = len(distinct)
			uniq[blocks[i]] = j
			distinct = append(distinct, i)
		}
		owner[i] = j
	}
	found := make([]endpoint, len(distinct))
	parallel(len(distinct), func(j int) { found[j] = bestEndpoint(&blocks[distinct[j]]) })
	best := make([]endpoint, len(blocks))
	for i := range blocks {
		best[i] = found[owner[i]]
	}
	epCount := map[uint32]int{}
	for _, e := range best {
		epCount[e.key()]++
	}
	var eps []endpoint
	if len(epCount) <= maxEP {
		for _, k := range sortedKeys(epCount) {
			eps = append(eps, endpointFromKey(k))
		}
	} else {
		keys := sortedKeys(epCount)
		pts := make([][]float64, len(keys))
		ws := make([]float64, len(keys))
		for i, k := range keys {
			v := endpointFromKey(k).vector()
			pts[i] = v[:]
			ws[i] = float64(epCount[k])
		}
		seen := map[uint32]bool{}
		for _, c := range kmeans(pts, ws, maxEP, 4, nil) {
			e := endpointNear(c)
			if !seen[e.key()] {
				seen[e.key()] = true
				eps = append(eps, e)
			}
		}
	}
	// Every block takes, among the endpoints nearest its own, the one that
	// codes it best.
	epIndex := make([]int, len(blocks))
	epByKey := map[uint32]int{}
	for i, e := range eps {
		epByKey[e.key()] = i
	}
	parallel(len(blocks), func(i int) {
		if j, ok := epByKey[best[i].key()]; ok {
			epIndex[i] = j
			return
		}
		epIndex[i] = nearestEndpoint(&blocks[i], best[i], eps)
	})
	// Selectors: each block's best under its endpoint, clustered.
	ideal := make([]selector, len(blocks))
	selCount := map[uint32]int{}
	parallel(len(blocks), func(i int) { ideal[i], _ = bestSelectors(&blocks[i], eps[epIndex[i]]) })
	for i := range blocks {
		selCount[ideal[i].key()]++
	}
	var sels []selector
	keys := sortedKeys(selCount)
	if len(keys) <= maxSel {
		for _, k := range keys {
			sels = append(sels, selectorFromKey(k))
		}
	} else {
		pts := make([][]float64, len(keys))
		ws := make([]float64, len(keys))
		for i, k := range keys {
			s := selectorFromKey(k)
			p := make([]float64, 16)
			for j, v := range s {
				p[j] = selWeights[v]
			}
			pts[i] = p
			ws[i] = float64(selCount[k])
		}
		// The four uniform selectors code flat blocks; keep them.
		var seeds [][]float64
		for v := 0; v < 4; v++ {
			p := make([]float64, 16)
			for j := range p {
				p[j] = selWeights[v]
			}
			seeds = append(seeds, p)
		}
		seen := map[uint32]bool{}
		for _, c := range kmeans(pts, ws, maxSel, 3, seeds) {
			var s selector
			for j, v := range c {
				bi, bd := 0, math.Inf(1)
				for q, w := range selWeights {
					if d := math.Abs(v - w); d < bd {
						bi, bd = q, d
					}
				}
				s[j] = uint8(bi)
			}
			if !seen[s.key()] {
				seen[s.key()] = true
				sels = append(sels, s)
			}
		}
	}
	selByKey := map[uint32]int{}
	for i, s := range sels {
		selByKey[s.key()] = i
	}
	selIndex := make([]int, len(blocks))
	parallel(len(blocks), func(i int) {
		if j, ok := selByKey[ideal[i].key()]; ok {
			selIndex[i] = j
			return
		}
		errs := selErrors(&blocks[i], eps[epIndex[i]])
		bj, be := 0, int32(math.MaxInt32)
		for j, s := range sels {
			var e int32
			for p, v := range s {
				e += errs[p][v]
			}
			if e < be {
				bj, be = j, e
			}
		}
		selIndex[i] = bj
	})
	refineEndpoints(blocks, eps, sels, epIndex, selIndex, selByKey)
	return compact(codebooks{endpoints: eps, selectors: sels, epIndex: epIndex, selIndex: selIndex})
}

// refineEndpoints moves each endpoint to the base colour and table that
// code its blocks, under their chosen selectors, with the least error (the
// least-squares base of each table, rounded, then measured with clamping),
// then gives each block the selector entry ideal under the moved endpoint
// when the codebook has it. An endpoint only moves when its blocks' error
// falls, so the picture never gets worse.
func refineEndpoints(blocks []block, eps []endpoint, sels []selector, epIndex, selIndex []int, selByKey map[uint32]int) {
	members := make([][]int, len(eps))
	for i, j := range epIndex {
		members[j] = append(members[j], i)
	}
	clusterErr := func(e endpoint, bs []int) int64 {
		cols := e.colors()
		var total int64
		for _, i := range bs {
			s := &sels[selIndex[i]]
			for p := range blocks[i] {
				c := cols[s[p]]
				for ch := 0; ch < 3; ch++ {
					d := int64(blocks[i][p][ch]) - int64(c[ch])
					total += d * d
				}
			}
		}
		return total
	}
	moved := make([]bool, len(eps))
	parallel(len(eps), func(j int) {
		bs := members[j]
		if len(bs) == 0 {
			return
		}
		best, bestErr := eps[j], clusterErr(eps[j], bs)
		for t := range intenTables {
			var sum [3]int64
			for _, i := range bs {
				s := &sels[selIndex[i]]
				for p := range blocks[i] {
					m := int64(intenTables[t][s[p]])
					for ch := 0; ch < 3; ch++ {
						sum[ch] += int64(blocks[i][p][ch]) - m
					}
				}
			}
			n := float64(16 * len(bs))
			var e endpoint
			e.t = uint8(t)
			for ch := 0; ch < 3; ch++ {
				v := float64(sum[ch]) / n
				e.c[ch] = uint8(min(31, max(0, math.Round(v*31/255))))
			}
			if err := clusterErr(e, bs); err < bestErr {
				best, bestErr = e, err
			}
		}
		if best != eps[j] {
			eps[j] = best
			moved[j] = true
		}
	})
	parallel(len(blocks), func(i int) {
		if !moved[epIndex[i]] {
			return
		}
		ideal, _ := bestSelectors(&blocks[i], eps[epIndex[i]])
		if k, ok := selByKey[ideal.key()]; ok {
			selIndex[i] = k
		}
	})
}

// parallel calls f(0..n-1) on every core, in chunks.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+255)/256)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	const chunk = 256
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(n, start+chunk); i++ {
					f(i)
				}
			}
		})
	}
	wg.Wait()
}

// endpointNear rounds a point of endpoint space to the nearest endpoint.
func endpointNear(v []float64) endpoint {
	var e endpoint
	for ch := 0; ch < 3; ch++ {
		e.c[ch] = uint8(min(31, max(0, math.Round(v[ch]*31/255))))
	}
	bt, bd := 0, math.Inf(1)
	for t := range intenTables {
		if d := math.Abs(0.5*float64(intenTables[t][3]) - v[3]); d < bd {
			bt, bd = t, d
		}
	}
	e.t = uint8(bt)
	return e
}

// nearestEndpoint returns the index of the endpoint of eps, among the
// eight nearest own in endpoint space, that codes b best.
func nearestEndpoint(b *block, own endpoint, eps []endpoint) int {
	const cands = 8
	v := own.vector()
	type cand struct {
		i int
		d float64
	}
	// The nearest few, kept in order by insertion.
	cs := make([]cand, 0, cands+1)
	for i, e := range eps {
		w := e.vector()
		var d float64
		for k := range v {
			x := v[k] - w[k]
			d += x * x
		}
		if len(cs) == cands && d >= cs[cands-1].d {
			continue
		}
		j := len(cs)
		cs = append(cs, cand{i, d})
		for ; j > 0 && cs[j-1].d > d; j-- {
			cs[j] = cs[j-1]
		}
		cs[j] = cand{i, d}
		if len(cs) > cands {
			cs = cs[:cands]
		}
	}
	bi, be := cs[0].i, int32(math.MaxInt32)
	for _, c := range cs {
		if _, err := bestSelectors(b, eps[c.i]); err < be {
			bi, be = c.i, err
		}
	}
	return bi
}

// compact drops unused codebook entries and orders both codebooks so that
// neighbouring entries are alike (which the codebooks' DPCM coding
// rewards): endpoints by luma, selectors by their bytes.
func compact(cb codebooks) codebooks {
	epOrder := usedEntries(cb.epIndex, len(cb.endpoints))
	luma := func(e endpoint) int32 {
		return 2*expand5(e.c[0]) + 5*expand5(e.c[1]) + expand5(e.c[2])
	}
	sort.SliceStable(epOrder, func(a, b int) bool {
		ea, eb := cb.endpoints[epOrder[a]], cb.endpoints[epOrder[b]]
		if la, lb := luma(ea), luma(eb); la != lb {
			return la < lb
		}
		return ea.key() < eb.key()
	})
	epMap := make([]int, len(cb.endpoints))
	var eps []endpoint
	for n, i := range epOrder {
		epMap[i] = n
		eps = append(eps, cb.endpoints[i])
	}
	selOrder := usedEntries(cb.selIndex, len(cb.selectors))
	sort.SliceStable(selOrder, func(a, b int) bool {
		return selBytes(cb.selectors[selOrder[a]]) < selBytes(cb.selectors[selOrder[b]])
	})
	selMap := make([]int, len(cb.selectors))
	var sels []selector
	for n, i := range selOrder {
		selMap[i] = n
		sels = append(sels, cb.selectors[i])
	}
	out := codebooks{endpoints: eps, selectors: sels, epIndex: make([]int, len(cb.epIndex)), selIndex: make([]int, len(cb.selIndex))}
	for b := range cb.epIndex {
		out.epIndex[b] = epMap[cb.epIndex[b]]
		out.selIndex[b] = selMap[cb.selIndex[b]]
	}
	return out
}

// usedEntries returns, in increasing order, the entries of a codebook of n
// entries that the blocks' indices use.
func usedEntries(index []int, n int) []int {
	used := make([]bool, n)
	for _, i := range index {
		used[i] = true
	}
	var out []int
	for i, u := range used {
		if u {
			out = append(out, i)
		}
	}
	return out
}

// selBytes packs a selector as the codebook stores it: one byte per row,
// the leftmost pixel in the low bits; the first row is the most
// significant byte of the result (for ordering).
func selBytes(s selector) uint32 {
	var v uint32
	for y := 0; y < 4; y++ {
		var b uint32
		for x := 0; x < 4; x++ {
			b |= uint32(s[y*4+x]) << (2 * x)
		}
		v = v<<8 | b
	}
	return v
}
