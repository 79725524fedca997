package basisu

// bitWriter packs bits least significant first, as the BasisLZ streams are
// read.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

// put appends the n low bits of v (n at most 32).
func (w *bitWriter) put(v uint32, n uint) {
	if n == 0 {
		return
	}
	w.acc |= uint64(v&(1<<n-1)) << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// putVLC writes v in chunks of chunkBits bits, each followed by a bit that
// says whether another chunk follows (the slice format's VLC).
func (w *bitWriter) putVLC(v uint32, chunkBits uint) {
	for {
		chunk := v & (1<<chunkBits - 1)
		v >>= chunkBits
		if v == 0 {
			w.put(chunk, chunkBits+1)
			return
		}
		w.put(chunk|1<<chunkBits, chunkBits+1)
	}
}

// bitLen returns the number of bits written so far.
func (w *bitWriter) bitLen() int { return len(w.buf)*8 + int(w.n) }

// bytes returns the bytes written, the last one padded with zero bits.
func (w *bitWriter) bytes() []byte {
	out := w.buf
	if w.n > 0 {
		out = append(out, byte(w.acc))
	}
	return out
}

// bitReader reads what bitWriter writes; the tests and the format checker use
// it.
type bitReader struct {
	buf []byte
	pos int // in bits
}

// get reads n bits (at most 32); reading past the end yields zero bits and
// sets the reader's position past the end.
func (r *bitReader) get(n uint) uint32 {
	var v uint32
	for i := uint(0); i < n; i++ {
		p := r.pos
		r.pos++
		if p/8 < len(r.buf) && r.buf[p/8]>>(p%8)&1 != 0 {
			v |= 1 << i
		}
	}
	return v
}

// overrun reports whether a read went past the end.
func (r *bitReader) overrun() bool { return r.pos > len(r.buf)*8 }
