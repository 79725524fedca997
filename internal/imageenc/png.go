package imageenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/draw"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"

	"github.com/tesseramaps/tessera/internal/cpuslots"
)

// pngLevel is the deflate level of PNG output: level 1 of klauspost's
// deflate, the fastest that still looks for matches. Measured on map
// images (a 512-px street view, a 512-px demo tile, a 2048x1536 static
// map), one core: against level 3 it takes 13-31% less time for 1.3-2.6%
// more bytes; level 3 was itself four times faster than the standard
// library's default for a few per cent more bytes.
const pngLevel = 1

// PNG colour types (the IHDR colour type byte).
const (
	pngTruecolor      = 2
	pngIndexed        = 3
	pngTruecolorAlpha = 6
)

// PNG row filter types.
const (
	filterNone = 0
	filterSub  = 1
	filterUp   = 2
)

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// minSegmentPixels is the least number of pixels given a goroutine of its
// own when an image is encoded in row segments: below it, starting the
// goroutines and the fresh deflate dictionary of each segment cost about
// what the second core gains. Measured on map-like images on two cores: a
// 256x256 image (two segments of 32k pixels) gains nothing, a 362x362 one
// (two of 65,522 pixels) is encoded 1.6 times as fast, a 2048x1536 one twice.
const minSegmentPixels = 64000

// zlibHeader is the zlib stream header (RFC 1950) of deflate with a 32 KiB
// window at a fast level: CMF 0x78, FLG with FLEVEL 1 and the check bits
// that make the pair a multiple of 31.
var zlibHeader = [2]byte{0x78, 0x5e}

// pngState is the reusable memory of one encoding.
type pngState struct {
	pix  []byte        // straight-alpha RGBA rows, packed
	raw  []byte        // filtered scanlines, each with its filter byte
	pal  paletteTable  // the palette of the whole image
	segs []*pngSegment // the row segments, encoded concurrently
}

// pngSegment is one band of rows, [y0, y1), and the memory its goroutine
// works in.
type pngSegment struct {
	y0, y1 int
	line   []byte       // the current and previous unfiltered rows
	pal    paletteTable // the colours of the band, in order of appearance
	palOK  bool         // the band has at most 256 colours
	opaque bool         // every pixel of the band has alpha 255
	zbuf   bytes.Buffer // the band's part of the zlib stream
	fw     *flate.Writer
	adler  uint32 // Adler-32 of the band's filtered scanlines
	err    error
}

var pngStates = sync.Pool{New: func() any { return new(pngState) }}

// EncodePNG writes img as a PNG: indexed when it has at most 256 distinct
// colours (lossless), truecolor when it is opaque, truecolor with alpha
// otherwise. Premultiplied input (*image.RGBA) is converted to PNG's
// straight alpha. Large images are encoded in row segments on several cores.
func EncodePNG(w io.Writer, img image.Image) error {
	b := img.Bounds()
	return encodePNG(w, img, pngSegments(b.Dx(), b.Dy()))
}

// pngSegments is the number of row segments a w x h image is encoded in:
// one per core, as long as each has minSegmentPixels.
func pngSegments(w, h int) int {
	return max(1, min(runtime.GOMAXPROCS(0), w*h/minSegmentPixels, h))
}

// encodePNG is EncodePNG with the image cut into segments bands of rows
// (at most one per row). Each band is converted, filtered and deflated by
// a goroutine of its own; the bands' deflate streams end with a sync flush
// (byte-aligned, not final) but the last, so that they join into one zlib
// stream, whose Adler-32 is combined from the bands' own. The palette and
// the colour type are decided over the whole image between the two
// concurrent passes, so the filtered scanlines do not depend on the number
// of segments.
func encodePNG(w io.Writer, img image.Image, segments int) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	if width <= 0 || height <= 0 {
		return fmt.Errorf("encode png: empty image %dx%d", width, height)
	}
	st := pngStates.Get().(*pngState)
	defer pngStates.Put(st)
	st.split(segments, height)

	need := 4 * width * height
	if cap(st.pix) < need {
		st.pix = make([]byte, need)
	}
	pix := st.pix[:need]
	st.run(func(s *pngSegment) { s.scan(pix, img, width) })

	isOpaque := true
	for _, s := range st.segs {
		isOpaque = isOpaque && s.opaque
	}
	colorType := pngTruecolorAlpha
	if st.mergePalettes() {
		colorType = pngIndexed
	} else if isOpaque {
		colorType = pngTruecolor
	}

	bpp := 1 // bytes a pixel
	switch colorType {
	case pngTruecolor:
		bpp = 3
	case pngTruecolorAlpha:
		bpp = 4
	}
	rowLen := 1 + bpp*width
	if cap(st.raw) < rowLen*height {
		st.raw = make([]byte, rowLen*height)
	}
	raw := st.raw[:rowLen*height]
	last := len(st.segs) - 1
	st.run(func(s *pngSegment) {
		out := raw[s.y0*rowLen : s.y1*rowLen]
		if colorType == pngIndexed {
			s.index(out, pix, width, &st.pal)
		} else {
			s.filter(out, pix, width, bpp)
		}
		s.compress(out, s == st.segs[0], s == st.segs[last])
	})
	sum := uint32(1) // the Adler-32 of no data
	for _, s := range st.segs {
		if s.err != nil {
			return fmt.Errorf("encode png: compress rows %d-%d: %w", s.y0, s.y1-1, s.err)
		}
		sum = adler32Combine(sum, s.adler, (s.y1-s.y0)*rowLen)
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], sum)
	st.segs[last].zbuf.Write(tail[:])

	cw := chunkWriter{w: w}
	cw.raw(pngSignature)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8] = 8 // bit depth
	ihdr[9] = byte(colorType)
	cw.chunk("IHDR", ihdr[:])
	if colorType == pngIndexed {
		plte, trns := st.pal.chunks()
		cw.chunk("PLTE", plte)
		if trns != nil {
			cw.chunk("tRNS", trns)
		}
	}
	// One IDAT per segment: the zlib stream is their concatenation, so
	// the segments' output is written where it lies.
	for _, s := range st.segs {
		cw.chunk("IDAT", s.zbuf.Bytes())
	}
	cw.chunk("IEND", nil)
	if cw.err != nil {
		return fmt.Errorf("encode png: %w", cw.err)
	}
	return nil
}

// split cuts h rows into n bands of nearly equal height (n is clamped to
// [1, h]).
func (st *pngState) split(n, h int) {
	n = max(1, min(n, h))
	if c := cap(st.segs); c < n {
		st.segs = append(st.segs[:c], make([]*pngSegment, n-c)...)
	}
	// Segments beyond an earlier, smaller count keep their memory.
	st.segs = st.segs[:n]
	for i, s := range st.segs {
		if s == nil {
			s = new(pngSegment)
			st.segs[i] = s
		}
		s.y0, s.y1 = i*h/n, (i+1)*h/n
		s.err = nil
	}
}

// run calls f for every segment, on the caller's goroutine and on one
// more for each processor slot free now (cpuslots; the segments, and so
// the bytes written, stay the same however many there are), and returns
// when all have returned. A panic in any of them is raised in the
// caller's goroutine once all have ended (where a render worker recovers
// it), never on its own.
func (st *pngState) run(f func(*pngSegment)) {
	var next atomic.Int64
	cpuslots.Render.Spread(len(st.segs), func() {
		for k := int(next.Add(1)) - 1; k < len(st.segs); k = int(next.Add(1)) - 1 {
			f(st.segs[k])
		}
	})
}

// mergePalettes builds the image's palette from the segments' ones, in
// segment order (which gives the colours the order of a single pass over
// the image), and reports whether the image has at most 256 colours.
func (st *pngState) mergePalettes() bool {
	st.pal.reset()
	for _, s := range st.segs {
		if !s.palOK {
			return false
		}
		for _, c := range s.pal.colors {
			if !st.pal.add(c) {
				return false
			}
		}
	}
	return true
}

// scan converts the segment's rows of img to packed straight-alpha RGBA in
// pix (the whole image's buffer) and collects their opacity and colours.
func (s *pngSegment) scan(pix []byte, img image.Image, w int) {
	rows := pix[s.y0*4*w : s.y1*4*w]
	straightRows(rows, img, s.y0, s.y1)
	s.opaque = true
	for i := 3; i < len(rows); i += 4 {
		if rows[i] != 255 {
			s.opaque = false
			break
		}
	}
	s.palOK = s.pal.build(rows)
}

// straightRows writes rows [y0, y1) of img (counted from its top) to dst
// as packed straight-alpha RGBA.
func straightRows(dst []byte, img image.Image, y0, y1 int) {
	b := img.Bounds()
	w, h := b.Dx(), y1-y0
	switch m := img.(type) {
	case *image.RGBA:
		unpremultiplyRows(dst, 4*w, m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y0):], m.Stride, w, h)
	case *image.NRGBA:
		src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y0):]
		for y := 0; y < h; y++ {
			copy(dst[y*4*w:(y+1)*4*w], src[y*m.Stride:])
		}
	default:
		d := &image.NRGBA{Pix: dst, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
		draw.Draw(d, d.Rect, img, image.Pt(b.Min.X, b.Min.Y+y0), draw.Src)
	}
}

// index writes the segment's indexed scanlines to out, each with filter
// None, looking colours up in the image's palette pal.
func (s *pngSegment) index(out, pix []byte, w int, pal *paletteTable) {
	o := 0
	for y := s.y0; y < s.y1; y++ {
		out[o] = filterNone
		o++
		row := pix[y*4*w : (y+1)*4*w]
		for i := 0; i < len(row); i += 4 {
			out[o] = pal.index(row[i : i+4])
			o++
		}
	}
}

// filter writes the segment's truecolor scanlines (bpp bytes a pixel) to
// out, each preceded by its filter byte: whichever of Sub and Up gives the
// smaller sum of absolute differences over every filterSample-th pixel
// (the usual heuristic, sampled: cheap, and good on both the flat areas and
// the gradients of maps). Up at the segment's
// first row looks at the image's row above it, so the scanlines are those of
// a single pass.
func (s *pngSegment) filter(out, pix []byte, w, bpp int) {
	n := bpp * w
	if cap(s.line) < 2*n {
		s.line = make([]byte, 2*n)
	}
	cur, prev := s.line[:n], s.line[n:2*n]
	if s.y0 == 0 {
		clear(prev)
	} else {
		packRow(prev, pix[(s.y0-1)*4*w:s.y0*4*w], bpp)
	}
	for y := s.y0; y < s.y1; y++ {
		packRow(cur, pix[y*4*w:(y+1)*4*w], bpp)
		var sumSub, sumUp int
		for i := 0; i < bpp; i++ {
			sumSub += absDiff(cur[i])
			sumUp += absDiff(cur[i] - prev[i])
		}
		left, up, c := cur[:n-bpp], prev[bpp:n], cur[bpp:n]
		// The sums are taken over one pixel in filterSample: enough to
		// tell the better filter of a row, at a fraction of the work.
		for p := 0; p+bpp <= len(c); p += filterSample * bpp {
			for i := p; i < p+bpp; i++ {
				sumSub += absDiff(c[i] - left[i])
				sumUp += absDiff(c[i] - up[i])
			}
		}
		line := out[(y-s.y0)*(n+1) : (y-s.y0+1)*(n+1)]
		body := line[1:]
		if y > 0 && sumUp < sumSub {
			line[0] = filterUp
			subBytes(body, cur, prev)
		} else {
			line[0] = filterSub
			copy(body[:bpp], cur[:bpp])
			subBytes(body[bpp:], c, left)
		}
		cur, prev = prev, cur
	}
}

// subBytes sets dst[i] to a[i] - b[i] modulo 256 (a and b at least as
// long as dst), eight bytes at a time: each byte's low seven bits are
// subtracted with its top bit set, so that no borrow crosses into the next
// byte, and the top bits are then put right (Hacker's Delight, 2-18).
func subBytes(dst, a, b []byte) {
	const high = 0x8080808080808080
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x, y := binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])
		binary.LittleEndian.PutUint64(dst[i:], ((x|high)-(y&^high))^((x^^y)&high))
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] - b[i]
	}
}

// filterSample is the step, in pixels, of the pixels whose differences
// choose a row's filter.
const filterSample = 4

// packRow copies a straight RGBA row to dst with bpp bytes a pixel: all
// four, or the colour without alpha.
func packRow(dst, row []byte, bpp int) {
	if bpp == 4 {
		copy(dst, row)
		return
	}
	for i, j := 0, 0; i < len(row); i, j = i+4, j+3 {
		dst[j], dst[j+1], dst[j+2] = row[i], row[i+1], row[i+2]
	}
}

// compress deflates the segment's scanlines raw into its buffer, after the
// zlib header when it is the first segment, and ends the deflate stream
// when it is the last; otherwise with a sync flush, which leaves the output
// byte-aligned and without a final block so that the next segment's stream
// continues it. It records the Adler-32 of raw.
func (s *pngSegment) compress(raw []byte, first, last bool) {
	s.zbuf.Reset()
	// Room for the compressed rows at once (a map picture deflates to
	// well under half): growing would copy them again.
	s.zbuf.Grow(len(raw)/2 + 1024)
	if first {
		s.zbuf.Write(zlibHeader[:])
	}
	if s.fw == nil {
		fw, err := flate.NewWriter(&s.zbuf, pngLevel)
		if err != nil {
			s.err = fmt.Errorf("deflate writer: %w", err)
			return
		}
		s.fw = fw
	} else {
		s.fw.Reset(&s.zbuf)
	}
	if _, err := s.fw.Write(raw); err != nil {
		s.err = fmt.Errorf("deflate: %w", err)
		return
	}
	if last {
		s.err = s.fw.Close()
	} else {
		s.err = s.fw.Flush()
	}
	if s.err != nil {
		s.err = fmt.Errorf("deflate end: %w", s.err)
	}
	s.adler = adler32.Checksum(raw)
}

// adlerMod is the modulus of Adler-32, the largest prime below 2^16.
const adlerMod = 65521

// adler32Combine returns the Adler-32 of the concatenation of two byte
// strings from their checksums sum1 and sum2 and the length of the second.
// With A = 1 + the sum of the bytes and B = the sum of A after each byte
// (both mod 65521), the second string's A values are all shifted by A1 - 1
// when it follows the first, so A = A1 + A2 - 1 and
// B = B1 + B2 + len2*(A1 - 1).
func adler32Combine(sum1, sum2 uint32, len2 int) uint32 {
	a1, b1 := uint64(sum1&0xffff), uint64(sum1>>16)
	a2, b2 := uint64(sum2&0xffff), uint64(sum2>>16)
	n := uint64(len2 % adlerMod)
	shift := (a1 + adlerMod - 1) % adlerMod
	a := (a1 + a2 + adlerMod - 1) % adlerMod
	b := (b1 + b2 + n*shift) % adlerMod
	return uint32(b<<16 | a)
}

// absDiff reads a filtered byte as a signed difference and returns its
// magnitude.
func absDiff(b byte) int {
	if v := int(int8(b)); v < 0 {
		return -v
	} else {
		return v
	}
}

// chunkWriter writes PNG chunks (length, type, data, CRC), keeping the
// first error.
type chunkWriter struct {
	w   io.Writer
	err error
}

func (c *chunkWriter) raw(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

func (c *chunkWriter) chunk(typ string, data []byte) {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	c.raw(head[:])
	c.raw(data)
	c.raw(tail[:])
}

// paletteTable finds whether an image has at most 256 distinct colours and
// gives each its index. It is an open-addressing hash set of packed RGBA
// values.
type paletteTable struct {
	keys   [1024]uint32
	used   [1024]bool
	idx    [1024]byte
	colors []uint32 // in index order
}

func packRGBA(p []byte) uint32 {
	return uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])
}

func (t *paletteTable) slot(c uint32) int {
	h := (c * 0x9e3779b1) >> 22 // 10 bits
	for {
		if !t.used[h] || t.keys[h] == c {
			return int(h)
		}
		h = (h + 1) & 1023
	}
}

// reset empties the table.
func (t *paletteTable) reset() {
	t.used = [1024]bool{}
	t.colors = t.colors[:0]
}

// add puts a packed colour in the table unless it is there already, and
// reports false when it would be a 257th colour.
func (t *paletteTable) add(c uint32) bool {
	s := t.slot(c)
	if t.used[s] {
		return true
	}
	if len(t.colors) == 256 {
		return false
	}
	t.used[s], t.keys[s], t.idx[s] = true, c, byte(len(t.colors))
	t.colors = append(t.colors, c)
	return true
}

// build collects the colours of pix (straight RGBA) in order of appearance
// and reports whether there are at most 256 of them. Fully transparent
// pixels all count as one colour, transparent black.
func (t *paletteTable) build(pix []byte) bool {
	t.reset()
	last, lastOK := uint32(0), false
	for i := 0; i < len(pix); i += 4 {
		c := packRGBA(pix[i : i+4])
		if c&0xff == 0 {
			c = 0
		}
		if lastOK && c == last {
			continue
		}
		last, lastOK = c, true
		if !t.add(c) {
			return false
		}
	}
	return true
}

// index returns the palette index of a straight RGBA pixel seen by build.
func (t *paletteTable) index(p []byte) byte {
	c := packRGBA(p)
	if c&0xff == 0 {
		c = 0
	}
	return t.idx[t.slot(c)]
}

// chunks returns the PLTE data and, when some colour is not opaque, the
// tRNS data (alpha per index, trailing opaque entries omitted).
func (t *paletteTable) chunks() (plte, trns []byte) {
	plte = make([]byte, 0, 3*len(t.colors))
	alpha := make([]byte, 0, len(t.colors))
	lastTranslucent := -1
	for i, c := range t.colors {
		plte = append(plte, byte(c>>24), byte(c>>16), byte(c>>8))
		a := byte(c)
		alpha = append(alpha, a)
		if a != 255 {
			lastTranslucent = i
		}
	}
	if lastTranslucent >= 0 {
		trns = alpha[:lastTranslucent+1]
	}
	return plte, trns
}
