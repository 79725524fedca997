package spritesheet

import (
	"encoding/binary"
	"math/bits"
)

// This file decompresses deflate data (RFC 1951) straight into the buffer
// of a known size that holds the whole image: no window to copy out of,
// input read 64 bits at a time. It accepts no more than compress/flate
// does (the same limits on code lengths and counts, complete codes but for
// a single one-bit code, no distance before the start).

// fastBits is the number of bits the Huffman tables resolve at once;
// longer codes are decoded bit by bit.
const fastBits = 10

// huffman is a canonical Huffman code's decoding tables.
type huffman struct {
	// fast holds, for each value of the next fastBits bits (first bit
	// lowest), the symbol<<4 | code length of the code they start with;
	// 0 when that code is longer.
	fast   [1 << fastBits]uint16
	count  [16]uint16  // codes of each length
	sorted [288]uint16 // symbols in code order
	max    int         // the longest code's length; 0: no codes
}

// init builds the code of the symbols' code lengths (0: unused), and
// reports false for a code compress/flate rejects: over-subscribed, or
// incomplete unless it is one code of one bit.
func (h *huffman) init(lengths []uint8) bool {
	h.count = [16]uint16{}
	h.max = 0
	for _, n := range lengths {
		h.count[n]++
		h.max = max(h.max, int(n))
	}
	h.count[0] = 0
	h.fast = [1 << fastBits]uint16{}
	if h.max == 0 {
		return true // decoding with it fails
	}
	var offs [16]uint16 // each length's first index in sorted
	left := 1           // codes left unassigned at each length
	for n := 1; n < 16; n++ {
		left = left<<1 - int(h.count[n])
		if left < 0 {
			return false
		}
		if n < 15 {
			offs[n+1] = offs[n] + h.count[n]
		}
	}
	if left != 0 {
		total := 0
		for _, c := range h.count {
			total += int(c)
		}
		if total != 1 || h.count[1] != 1 {
			return false
		}
	}
	code := 0 // the next code of the current length
	var next [16]int
	for n := 1; n < 16; n++ {
		code = (code + int(h.count[n-1])) << 1
		next[n] = code
	}
	for sym, n := range lengths {
		if n == 0 {
			continue
		}
		h.sorted[offs[n]] = uint16(sym)
		offs[n]++
		c := next[n]
		next[n]++
		if n > fastBits {
			continue
		}
		rev := int(bits.Reverse16(uint16(c)) >> (16 - n))
		for j := rev; j < len(h.fast); j += 1 << n {
			h.fast[j] = uint16(sym)<<4 | uint16(n)
		}
	}
	return true
}

// slow decodes a code longer than fastBits (or none) from the low bits of
// b, a bit at a time, and returns its symbol and length, or a length 0.
func (h *huffman) slow(b uint64) (sym, n int) {
	code, first, index := 0, 0, 0
	for n = 1; n <= h.max; n++ {
		code |= int(b & 1)
		b >>= 1
		count := int(h.count[n])
		if code-first < count {
			return int(h.sorted[index+code-first]), n
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, 0
}

// Base lengths and distances of the length and distance symbols, and
// their extra bits (RFC 1951, section 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// The order of the code length code's lengths.
	clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// inflater is the state of one decompression.
type inflater struct {
	src  []byte
	pos  int    // the next byte of src to load; past its end, zero bytes are loaded
	b    uint64 // loaded bits, the next lowest
	nb   uint   // how many
	out  []byte
	o    int // bytes written to out
	lit  huffman
	dist huffman
}

// refill loads bits until at least 56 are loaded.
func (f *inflater) refill() {
	if f.nb >= 56 {
		return
	}
	if f.pos+8 <= len(f.src) {
		f.b |= binary.LittleEndian.Uint64(f.src[f.pos:]) << f.nb
		f.pos += int(63-f.nb) >> 3
		f.nb |= 56
		return
	}
	for f.nb < 56 {
		if f.pos < len(f.src) {
			f.b |= uint64(f.src[f.pos]) << f.nb
		}
		f.pos++
		f.nb += 8
	}
}

// take consumes n bits (n <= nb) and returns them.
func (f *inflater) take(n uint) uint64 {
	v := f.b & (1<<n - 1)
	f.b >>= n
	f.nb -= n
	return v
}

// symbol decodes one symbol of h; false if the bits are no code of it.
func (f *inflater) symbol(h *huffman) (int, bool) {
	e := h.fast[f.b&(1<<fastBits-1)]
	if e != 0 {
		f.b >>= e & 15
		f.nb -= uint(e & 15)
		return int(e >> 4), true
	}
	sym, n := h.slow(f.b)
	if n == 0 {
		return 0, false
	}
	f.take(uint(n))
	return sym, true
}

// inflate decompresses the deflate stream at the start of src into out,
// which the stream must fill exactly, and returns how many bytes of src
// it took (to the byte holding its last bit). It reports false for a
// malformed or short stream, one that makes more or fewer bytes, or one
// compress/flate rejects.
func inflate(out, src []byte) (int, bool) {
	f := &inflater{src: src, out: out}
	for {
		f.refill()
		final := f.take(1)
		var ok bool
		switch f.take(2) {
		case 0:
			ok = f.stored()
		case 1:
			ok = f.fixed() && f.codes()
		case 2:
			ok = f.dynamic() && f.codes()
		}
		if !ok {
			return 0, false
		}
		if final == 1 {
			break
		}
	}
	used := f.pos - int(f.nb/8)
	if used > len(src) || f.o != len(out) {
		return 0, false
	}
	return used, true
}

// stored copies a stored block.
func (f *inflater) stored() bool {
	f.take(f.nb % 8)
	f.pos -= int(f.nb / 8) // unload the whole bytes
	f.b, f.nb = 0, 0
	if f.pos+4 > len(f.src) {
		return false
	}
	n := int(binary.LittleEndian.Uint16(f.src[f.pos:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(f.src[f.pos+2:]) {
		return false
	}
	f.pos += 4
	if f.pos+n > len(f.src) || f.o+n > len(f.out) {
		return false
	}
	f.o += copy(f.out[f.o:], f.src[f.pos:f.pos+n])
	f.pos += n
	return true
}

// fixed sets the codes of a block with fixed Huffman codes.
func (f *inflater) fixed() bool {
	var lengths [288 + 32]uint8
	for i := range lengths {
		switch {
		case i < 144:
			lengths[i] = 8
		case i < 256:
			lengths[i] = 9
		case i < 280:
			lengths[i] = 7
		case i < 288:
			lengths[i] = 8
		default:
			lengths[i] = 5 // the distance codes, 30 and 31 invalid
		}
	}
	return f.lit.init(lengths[:288]) && f.dist.init(lengths[288:])
}

// dynamic reads the codes of a block with dynamic Huffman codes.
func (f *inflater) dynamic() bool {
	f.refill()
	nlit, ndist, nclen := int(f.take(5))+257, int(f.take(5))+1, int(f.take(4))+4
	if nlit > 286 || ndist > 30 {
		return false
	}
	var clen [19]uint8
	for i := range nclen {
		f.refill()
		clen[clenOrder[i]] = uint8(f.take(3))
	}
	var h huffman
	if !h.init(clen[:]) {
		return false
	}
	var lengths [286 + 30]uint8
	for i := 0; i < nlit+ndist; {
		f.refill()
		sym, ok := f.symbol(&h)
		if !ok {
			return false
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return false
			}
			rep, v = 3+int(f.take(2)), lengths[i-1]
		case 17:
			rep = 3 + int(f.take(3))
		default:
			rep = 11 + int(f.take(7))
		}
		if i+rep > nlit+ndist {
			return false
		}
		for range rep {
			lengths[i] = v
			i++
		}
	}
	return f.lit.init(lengths[:nlit]) && f.dist.init(lengths[nlit:nlit+ndist])
}

// codes decodes a block's literals and copies, to its end. It keeps the
// bit buffer in local variables, which the compiler keeps in registers.
func (f *inflater) codes() bool {
	src, pos, b, nb := f.src, f.pos, f.b, f.nb
	out, o := f.out, f.o
	lit, dist := &f.lit, &f.dist
	ok := false
	for {
		// 48 bits hold a length code and extra bits and a distance code
		// and extra bits: 15+5+15+13.
		if nb < 48 {
			if pos+8 <= len(src) {
				b |= binary.LittleEndian.Uint64(src[pos:]) << nb
				pos += int(63-nb) >> 3
				nb |= 56
			} else {
				f.pos, f.b, f.nb = pos, b, nb
				f.refill()
				pos, b, nb = f.pos, f.b, f.nb
			}
		}
		var sym int
		if e := lit.fast[b&(1<<fastBits-1)]; e != 0 {
			b >>= e & 15
			nb -= uint(e & 15)
			sym = int(e >> 4)
		} else {
			s, n := lit.slow(b)
			if n == 0 {
				break
			}
			b >>= uint(n)
			nb -= uint(n)
			sym = s
		}
		if sym < 256 {
			if o >= len(out) {
				break
			}
			out[o] = byte(sym)
			o++
			continue
		}
		if sym == 256 {
			ok = true
			break
		}
		sym -= 257
		if sym >= len(lengthBase) {
			break
		}
		extra := uint(lengthExtra[sym])
		n := int(lengthBase[sym]) + int(b&(1<<extra-1))
		b >>= extra
		nb -= extra
		var d int
		if e := dist.fast[b&(1<<fastBits-1)]; e != 0 {
			b >>= e & 15
			nb -= uint(e & 15)
			d = int(e >> 4)
		} else {
			s, n := dist.slow(b)
			if n == 0 {
				break
			}
			b >>= uint(n)
			nb -= uint(n)
			d = s
		}
		if d >= len(distBase) {
			break
		}
		extra = uint(distExtra[d])
		d = int(distBase[d]) + int(b&(1<<extra-1))
		b >>= extra
		nb -= extra
		if d > o || n > len(out)-o {
			break
		}
		// A copy nearer than its length repeats: each copy doubles the
		// repeated bytes that the next can copy from.
		for start := o - d; n > 0; {
			k := copy(out[o:o+n], out[start:o])
			o += k
			n -= k
		}
	}
	f.pos, f.b, f.nb, f.o = pos, b, nb, o
	return ok
}
