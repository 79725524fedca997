package spritesheet

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// PNG colour types (the PNG specification, section 11.2.2).
const (
	ctGrey      = 0
	ctRGB       = 2
	ctPalette   = 3
	ctGreyAlpha = 4
	ctRGBA      = 6
)

// rawImage is an 8-bit, non-interlaced PNG image as its rows decode: each
// row is its filter byte and then its pixels in the PNG's colour type,
// filtered until a cut needs the row (a render cuts a few icons of many).
type rawImage struct {
	w, h   int
	ct     int           // colour type
	bpp    int           // bytes per pixel
	stride int           // bytes per row: 1 + w*bpp
	pix    []byte        // h rows
	pal    [256][4]uint8 // premultiplied RGBA of each palette index

	mu   sync.Mutex // guards the unfiltering of rows
	done []bool     // the rows unfiltered
}

// maxInflate bounds the bytes deflate can make of one byte of input
// (258 bytes a 2-bit code at best, with some slack): an image larger than
// this many times its compressed data cannot be valid, and is not
// allocated.
const maxInflate = 1040

// decodeRaw decodes a PNG that is 8-bit grey, grey and alpha, RGB, RGBA or
// palette, not interlaced, and well formed: its chunks in the order
// image/png requires, every checksum right, the image data one run of IDAT
// chunks that holds exactly the zlib stream of the rows. It reports false
// for anything else, which image/png then decodes or rejects: what this
// function accepts, image/png decodes to the same pixels.
func decodeRaw(data []byte) (*rawImage, bool) {
	const signature = "\x89PNG\r\n\x1a\n"
	if len(data) < len(signature) || string(data[:len(signature)]) != signature {
		return nil, false
	}
	const (
		stStart = iota
		stIHDR
		stPLTE
		stTRNS
		stIDAT  // in the run of IDAT chunks
		stAfter // after the run
	)
	var (
		m     rawImage
		stage = stStart
		idat  [][]byte
		size  int // the image data's length
	)
	for p := len(signature); ; {
		if len(data)-p < 12 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint32(data[p:]))
		if n > 0x7fffffff || n > len(data)-p-12 {
			return nil, false
		}
		typ, body := string(data[p+4:p+8]), data[p+8:p+8+n]
		if crc32.ChecksumIEEE(data[p+4:p+8+n]) != binary.BigEndian.Uint32(data[p+8+n:]) {
			return nil, false
		}
		p += 12 + n
		if stage == stIDAT && typ != "IDAT" {
			stage = stAfter
		}
		switch typ {
		case "IHDR":
			if stage != stStart || !m.header(body) {
				return nil, false
			}
			stage = stIHDR
		case "PLTE":
			if stage != stIHDR || m.ct != ctPalette || n%3 != 0 || n == 0 || n > 3*256 {
				return nil, false
			}
			for i := range 256 {
				m.pal[i] = [4]uint8{0, 0, 0, 0xff} // as image/png: out-of-range indices are opaque black
			}
			for i := 0; i < n/3; i++ {
				m.pal[i] = [4]uint8{body[3*i], body[3*i+1], body[3*i+2], 0xff}
			}
			stage = stPLTE
		case "tRNS":
			if stage != stPLTE || n > 256 {
				return nil, false // image/png's tRNS of grey and RGB images is left to it
			}
			for i, a := range body {
				c := &m.pal[i]
				c[0], c[1], c[2], c[3] = premul(c[0], a), premul(c[1], a), premul(c[2], a), a
			}
			stage = stTRNS
		case "IDAT":
			if stage < stIHDR || stage == stAfter || (m.ct == ctPalette && stage == stIHDR) {
				return nil, false
			}
			stage = stIDAT
			idat = append(idat, body)
			size += n
		case "IEND":
			if stage != stAfter || n != 0 {
				return nil, false
			}
			if size == 0 || m.h*m.stride/maxInflate > size {
				return nil, false
			}
			return &m, m.inflate(idat, size)
		}
	}
}

// header reads the IHDR chunk.
func (m *rawImage) header(b []byte) bool {
	if len(b) != 13 {
		return false
	}
	w, h := int32(binary.BigEndian.Uint32(b)), int32(binary.BigEndian.Uint32(b[4:]))
	depth, ct, compression, filter, interlace := b[8], int(b[9]), b[10], b[11], b[12]
	if w <= 0 || h <= 0 || depth != 8 || compression != 0 || filter != 0 || interlace != 0 {
		return false
	}
	switch ct {
	case ctGrey, ctPalette:
		m.bpp = 1
	case ctGreyAlpha:
		m.bpp = 2
	case ctRGB:
		m.bpp = 3
	case ctRGBA:
		m.bpp = 4
	default:
		return false
	}
	m.w, m.h, m.ct = int(w), int(h), ct
	m.stride = 1 + m.w*m.bpp
	return int64(m.h)*int64(m.stride) <= 1<<40 // no overflow on any platform that can hold it
}

// inflate decompresses the image data (the IDAT chunks' bodies, size bytes
// in all) into m.pix and checks the rows' filter types; the rows are
// unfiltered as cuts need them. The zlib stream must end exactly at the end
// of the data, checksum verified, after the last row.
func (m *rawImage) inflate(idat [][]byte, size int) bool {
	data := idat[0]
	if len(idat) > 1 {
		data = make([]byte, 0, size)
		for _, b := range idat {
			data = append(data, b...)
		}
	}
	// The zlib stream (RFC 1950) holds exactly the rows and ends with the
	// data: klauspost's inflater (faster than compress/flate's) fills them,
	// and checks the stream's Adler-32 when it reads its end.
	br := bytes.NewReader(data) // a byte reader: read no further than the stream
	zr, err := zlib.NewReader(br)
	if err != nil {
		return false
	}
	defer zr.Close()
	m.pix = make([]byte, m.h*m.stride)
	if _, err := io.ReadFull(zr, m.pix); err != nil {
		return false
	}
	var extra [1]byte
	if n, err := zr.Read(extra[:]); n != 0 || err != io.EOF || br.Len() != 0 {
		return false // more rows than the image has, a bad checksum, or bytes after the stream
	}
	for y := range m.h {
		if m.pix[y*m.stride] > 4 {
			return false // not a filter type
		}
	}
	m.done = make([]bool, m.h)
	return true
}

// unfilterRows unfilters the rows y0 to y1-1 not unfiltered yet, and the
// rows above that their filters need.
func (m *rawImage) unfilterRows(y0, y1 int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	y := y0
	for y > 0 && !m.done[y] && m.pix[y*m.stride] >= 2 && !m.done[y-1] { // up, average and Paeth need the row above
		y--
	}
	for ; y < y1; y++ {
		if m.done[y] {
			continue
		}
		var prev []byte
		if y > 0 {
			prev = m.pix[(y-1)*m.stride+1 : y*m.stride]
		}
		unfilter(m.pix[y*m.stride], m.pix[y*m.stride+1:(y+1)*m.stride], prev, m.bpp)
		m.done[y] = true
	}
}

// unfilter reverses a row's filter (the PNG specification, section 9.2)
// and reports whether f is a filter type. prev is the row above,
// unfiltered, or nil for the first row.
func unfilter(f byte, cur, prev []byte, bpp int) bool {
	switch f {
	case 0: // none
	case 1: // sub
		unsub(cur, bpp)
	case 2: // up
		if prev != nil {
			prev = prev[:len(cur)]
			i := 0
			for ; i+8 <= len(cur); i += 8 {
				binary.LittleEndian.PutUint64(cur[i:], addBytes(binary.LittleEndian.Uint64(cur[i:]), binary.LittleEndian.Uint64(prev[i:])))
			}
			for ; i < len(cur); i++ {
				cur[i] += prev[i]
			}
		}
	case 3: // average
		if prev == nil {
			for i := bpp; i < len(cur); i++ {
				cur[i] += cur[i-bpp] / 2
			}
			break
		}
		prev = prev[:len(cur)]
		for i := 0; i < bpp; i++ {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += uint8((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4: // Paeth
		if prev == nil { // with a zero row above, Paeth predicts the left byte
			unsub(cur, bpp)
			break
		}
		unpaeth(cur, prev[:len(cur)], bpp)
	default:
		return false
	}
	return true
}

// unsub reverses the Sub filter: each byte is the difference from the
// byte bpp before it.
func unsub(cur []byte, bpp int) {
	if bpp == 4 { // a pixel at a time
		var left uint64
		for i := 0; i+4 <= len(cur); i += 4 {
			left = addBytes(uint64(binary.LittleEndian.Uint32(cur[i:])), left)
			binary.LittleEndian.PutUint32(cur[i:], uint32(left))
		}
		return
	}
	for i := bpp; i < len(cur); i++ {
		cur[i] += cur[i-bpp]
	}
}

// addBytes adds x and y byte by byte, modulo 256: the sums of the low 7
// bits of each byte cannot carry into the next, and the top bits add
// without carry as an exclusive or.
func addBytes(x, y uint64) uint64 {
	const high = 0x8080808080808080
	return ((x &^ high) + (y &^ high)) ^ ((x ^ y) & high)
}

// unpaeth reverses the Paeth filter of a row below another.
func unpaeth(cur, prev []byte, bpp int) {
	if bpp == 4 {
		unpaeth4(cur, prev)
		return
	}
	for i := 0; i < bpp; i++ { // no left pixel: Paeth predicts the byte above
		cur[i] += prev[i]
	}
	for i := bpp; i < len(cur); i++ {
		cur[i] += paeth(int(cur[i-bpp]), int(prev[i]), int(prev[i-bpp]))
	}
}

// unpaeth4 is unpaeth of 4 bytes a pixel, two channels at a time so that
// their (serial) predictions overlap: four at a time spill registers.
func unpaeth4(cur, prev []byte) {
	if len(cur) < 4 || len(prev) < len(cur) {
		return // never so: a row holds a pixel; this spares bounds checks
	}
	prev = prev[:len(cur)]
	for ch := 0; ch < 4; ch += 2 {
		cur[ch] += prev[ch] // no left pixel: Paeth predicts the byte above
		cur[ch+1] += prev[ch+1]
		a0, a1 := int(cur[ch]), int(cur[ch+1])
		c0, c1 := int(prev[ch]), int(prev[ch+1])
		for i := ch + 4; i+1 < len(cur); i += 4 {
			b0, b1 := int(prev[i]), int(prev[i+1])
			a0 = int(cur[i] + paeth(a0, b0, c0))
			a1 = int(cur[i+1] + paeth(a1, b1, c1))
			cur[i], cur[i+1] = uint8(a0), uint8(a1)
			c0, c1 = b0, b1
		}
	}
}

// paeth is the Paeth predictor of a byte from the bytes left (a), above
// (b) and upper left (c): of the three, the nearest to p = a+b-c, a before
// b before c on a tie. It compiles to conditional moves.
//
// With lo <= hi the smaller and larger of a and b, p is at hi-c from lo,
// c-lo from hi and |(hi-c)-(c-lo)| from c. So the prediction is hi when
// c <= lo, lo when c >= hi, and for c between them lo when c-lo >= 2(hi-c),
// hi when hi-c >= 2(c-lo), else c: in all cases, lo when hi <= t and hi
// when t <= lo, for t = 3c-a-b. (A tie of a and b of different values
// puts c at 0 from p.) TestPaeth checks this on every input.
func paeth(a, b, c int) uint8 {
	lo, hi := min(a, b), max(a, b)
	t := 3*c - a - b
	pred := c
	if hi <= t {
		pred = lo
	}
	if t <= lo {
		pred = hi
	}
	return uint8(pred)
}

func abs(x int) int {
	m := x >> 63
	return (x ^ m) - m
}

// cut writes r's pixels premultiplied to pix (see Sheet.Cut).
func (m *rawImage) cut(pix []uint8, r image.Rectangle) {
	m.unfilterRows(r.Min.Y, r.Max.Y)
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		o := y*m.stride + 1 + r.Min.X*m.bpp
		src := m.pix[o : o+w*m.bpp]
		dst := pix[(y-r.Min.Y)*4*w : (y-r.Min.Y+1)*4*w]
		switch m.ct {
		case ctRGBA:
			premultiplyRow(dst, src)
		case ctRGB:
			for x := range w {
				s, d := src[3*x:3*x+3:3*x+3], dst[4*x:4*x+4:4*x+4]
				d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 0xff
			}
		case ctGrey:
			for x, g := range src {
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = g, g, g, 0xff
			}
		case ctGreyAlpha:
			for x := range w {
				g, a := premul(src[2*x], src[2*x+1]), src[2*x+1]
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = g, g, g, a
			}
		case ctPalette:
			for x, i := range src {
				copy(dst[4*x:4*x+4], m.pal[i][:])
			}
		}
	}
}
