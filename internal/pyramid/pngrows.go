package pyramid

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// ErrFormat is wrapped by errors in a picture's bytes (the uploader's
// fault, as opposed to a failure to read them).
var ErrFormat = errors.New("invalid picture")

// Bounds of a picture. The memory a pyramid is built in grows with the
// width (two bands of 256 rows: 2 KiB a column, 200 MiB at MaxSide), the
// work with the pixels.
const (
	MaxSide   = 100_000
	MaxPixels = 2_000_000_000
)

// Rows yields a picture's rows top to bottom as straight (not
// premultiplied) 8-bit RGBA, 4 bytes a pixel.
type Rows interface {
	// Size is the picture's width and height in pixels.
	Size() (w, h int)
	// Next fills dst (4*w bytes) with the next row; io.EOF after the last.
	Next(dst []byte) error
}

// PNGRows decodes a non-interlaced PNG one row at a time: the memory it
// holds is two rows of the picture, whatever its height. Every colour type
// and bit depth of the PNG specification is read (16-bit samples keep
// their high byte; tRNS gives alpha); interlaced pictures are refused with
// ErrInterlaced (read them whole with a bound instead).
type PNGRows struct {
	r         *bufio.Reader
	w, h      int
	depth     int
	ctype     byte
	palette   [256][4]byte
	paletteN  int
	trns      []byte
	hasTRNS   bool
	stride    int // bytes of a filtered row without its filter byte
	bpp       int // bytes per complete pixel, at least 1
	cur, prev []byte
	z         io.ReadCloser
	row       int
	idat      *idatReader
}

// ErrInterlaced tells that a PNG is interlaced (Adam7): its rows come in
// seven passes, so it cannot be read row by row.
var ErrInterlaced = fmt.Errorf("%w: the PNG is interlaced", ErrFormat)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// NewPNGRows reads a PNG's header chunks up to its first IDAT.
func NewPNGRows(r io.Reader) (*PNGRows, error) {
	p := &PNGRows{r: bufio.NewReaderSize(r, 64<<10)}
	var sig [8]byte
	if _, err := io.ReadFull(p.r, sig[:]); err != nil {
		return nil, fmt.Errorf("%w: not a PNG: %v", ErrFormat, err)
	}
	if string(sig[:]) != string(pngSignature) {
		return nil, fmt.Errorf("%w: not a PNG (bad signature)", ErrFormat)
	}
	seenIHDR := false
	for {
		length, typ, err := p.chunkHeader()
		if err != nil {
			return nil, err
		}
		if !seenIHDR && typ != "IHDR" {
			return nil, fmt.Errorf("%w: the PNG does not start with IHDR", ErrFormat)
		}
		switch typ {
		case "IHDR":
			if seenIHDR || length != 13 {
				return nil, fmt.Errorf("%w: bad IHDR", ErrFormat)
			}
			b, err := p.chunkData(typ, length)
			if err != nil {
				return nil, err
			}
			if err := p.header(b); err != nil {
				return nil, err
			}
			seenIHDR = true
		case "PLTE":
			if length%3 != 0 || length == 0 || length > 768 {
				return nil, fmt.Errorf("%w: bad PLTE length %d", ErrFormat, length)
			}
			b, err := p.chunkData(typ, length)
			if err != nil {
				return nil, err
			}
			p.paletteN = int(length / 3)
			for i := 0; i < p.paletteN; i++ {
				p.palette[i] = [4]byte{b[3*i], b[3*i+1], b[3*i+2], 255}
			}
		case "tRNS":
			if length > 256 {
				return nil, fmt.Errorf("%w: bad tRNS length %d", ErrFormat, length)
			}
			b, err := p.chunkData(typ, length)
			if err != nil {
				return nil, err
			}
			if err := p.transparency(b); err != nil {
				return nil, err
			}
		case "IDAT":
			if p.ctype == 3 && p.paletteN == 0 {
				return nil, fmt.Errorf("%w: a paletted PNG without PLTE", ErrFormat)
			}
			p.idat = &idatReader{p: p, left: length, crc: crc32.NewIEEE()}
			p.idat.crc.Write([]byte("IDAT"))
			z, err := zlib.NewReader(p.idat)
			if err != nil {
				return nil, fmt.Errorf("%w: the PNG's image data: %v", ErrFormat, err)
			}
			p.z = z
			p.cur, p.prev = make([]byte, p.stride+1), make([]byte, p.stride+1)
			return p, nil
		case "IEND":
			return nil, fmt.Errorf("%w: the PNG has no image data", ErrFormat)
		default:
			if typ[0]&0x20 == 0 { // critical
				return nil, fmt.Errorf("%w: unknown critical PNG chunk %q", ErrFormat, typ)
			}
			if _, err := p.chunkData(typ, length); err != nil {
				return nil, err
			}
		}
	}
}

// Size is the picture's width and height.
func (p *PNGRows) Size() (int, int) { return p.w, p.h }

func (p *PNGRows) chunkHeader() (uint32, string, error) {
	var b [8]byte
	if _, err := io.ReadFull(p.r, b[:]); err != nil {
		return 0, "", fmt.Errorf("%w: the PNG is cut short: %v", ErrFormat, err)
	}
	length := binary.BigEndian.Uint32(b[:4])
	if length > 1<<31-1 {
		return 0, "", fmt.Errorf("%w: bad PNG chunk length", ErrFormat)
	}
	for _, c := range b[4:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return 0, "", fmt.Errorf("%w: bad PNG chunk type %q", ErrFormat, b[4:])
		}
	}
	return length, string(b[4:]), nil
}

// chunkData reads a chunk's data (ancillary chunks of any size are
// skipped, not held) and checks its CRC.
func (p *PNGRows) chunkData(typ string, length uint32) ([]byte, error) {
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	var data []byte
	if length <= 1024 {
		data = make([]byte, length)
		if _, err := io.ReadFull(p.r, data); err != nil {
			return nil, fmt.Errorf("%w: the PNG is cut short: %v", ErrFormat, err)
		}
		crc.Write(data)
	} else if _, err := io.CopyN(crc, p.r, int64(length)); err != nil {
		return nil, fmt.Errorf("%w: the PNG is cut short: %v", ErrFormat, err)
	}
	if err := p.checkCRC(crc); err != nil {
		return nil, err
	}
	return data, nil
}

func (p *PNGRows) checkCRC(crc hash.Hash32) error {
	var b [4]byte
	if _, err := io.ReadFull(p.r, b[:]); err != nil {
		return fmt.Errorf("%w: the PNG is cut short: %v", ErrFormat, err)
	}
	if binary.BigEndian.Uint32(b[:]) != crc.Sum32() {
		return fmt.Errorf("%w: PNG chunk checksum mismatch", ErrFormat)
	}
	return nil
}

func (p *PNGRows) header(b []byte) error {
	w, h := binary.BigEndian.Uint32(b[0:4]), binary.BigEndian.Uint32(b[4:8])
	if w == 0 || h == 0 || w > MaxSide || h > MaxSide || uint64(w)*uint64(h) > MaxPixels {
		return fmt.Errorf("%w: PNG size %dx%d: sides are 1 to %d pixels, at most %d pixels in all", ErrFormat, w, h, MaxSide, MaxPixels)
	}
	p.w, p.h, p.depth, p.ctype = int(w), int(h), int(b[8]), b[9]
	if b[10] != 0 || b[11] != 0 {
		return fmt.Errorf("%w: unknown PNG compression or filter method", ErrFormat)
	}
	if b[12] == 1 {
		return ErrInterlaced
	}
	if b[12] != 0 {
		return fmt.Errorf("%w: unknown PNG interlace method %d", ErrFormat, b[12])
	}
	channels := 0
	switch p.ctype {
	case 0:
		channels = 1
		if p.depth != 1 && p.depth != 2 && p.depth != 4 && p.depth != 8 && p.depth != 16 {
			channels = 0
		}
	case 2:
		channels = 3
	case 3:
		channels = 1
		if p.depth > 8 {
			channels = 0
		}
	case 4:
		channels = 2
	case 6:
		channels = 4
	}
	if (p.ctype == 2 || p.ctype == 4 || p.ctype == 6) && p.depth != 8 && p.depth != 16 {
		channels = 0
	}
	if p.ctype == 3 && p.depth != 1 && p.depth != 2 && p.depth != 4 && p.depth != 8 {
		channels = 0
	}
	if channels == 0 {
		return fmt.Errorf("%w: PNG colour type %d with bit depth %d", ErrFormat, p.ctype, p.depth)
	}
	bits := channels * p.depth
	p.stride = (p.w*bits + 7) / 8
	p.bpp = max(1, bits/8)
	return nil
}

func (p *PNGRows) transparency(b []byte) error {
	switch p.ctype {
	case 0:
		if len(b) != 2 {
			return fmt.Errorf("%w: bad tRNS for a grey PNG", ErrFormat)
		}
	case 2:
		if len(b) != 6 {
			return fmt.Errorf("%w: bad tRNS for an RGB PNG", ErrFormat)
		}
	case 3:
		if len(b) > p.paletteN {
			return fmt.Errorf("%w: tRNS longer than the palette", ErrFormat)
		}
		for i, a := range b {
			p.palette[i][3] = a
		}
		return nil
	default:
		return fmt.Errorf("%w: tRNS in a PNG with alpha", ErrFormat)
	}
	p.trns, p.hasTRNS = b, true
	return nil
}

// Next fills dst with the next row as straight RGBA.
func (p *PNGRows) Next(dst []byte) error {
	if p.row >= p.h {
		return io.EOF
	}
	if len(dst) < 4*p.w {
		return fmt.Errorf("pyramid: row buffer of %d bytes for %d pixels", len(dst), p.w)
	}
	p.cur, p.prev = p.prev, p.cur
	if _, err := io.ReadFull(p.z, p.cur); err != nil {
		return fmt.Errorf("%w: the PNG's image data ends at row %d of %d: %v", ErrFormat, p.row, p.h, err)
	}
	if p.row == 0 {
		clear(p.prev)
	}
	if err := unfilter(p.cur[0], p.cur[1:], p.prev[1:], p.bpp); err != nil {
		return fmt.Errorf("%w: row %d: %v", ErrFormat, p.row, err)
	}
	p.expand(dst[:4*p.w], p.cur[1:])
	p.row++
	return nil
}

// unfilter undoes a row's filter in place (prev is the unfiltered row
// above, zeros for the first).
func unfilter(f byte, cur, prev []byte, bpp int) error {
	switch f {
	case 0:
	case 1:
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2:
		for i := range cur {
			cur[i] += prev[i]
		}
	case 3:
		for i := 0; i < bpp && i < len(cur); i++ {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += byte((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4:
		for i := 0; i < bpp && i < len(cur); i++ {
			cur[i] += prev[i]
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += paeth(cur[i-bpp], prev[i], prev[i-bpp])
		}
	default:
		return fmt.Errorf("unknown filter type %d", f)
	}
	return nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// expand turns a row of samples into straight RGBA.
func (p *PNGRows) expand(dst, src []byte) {
	switch {
	case p.ctype == 0 && p.depth < 8, p.ctype == 3:
		per := 8 / p.depth
		mask := byte(1<<p.depth - 1)
		scale := byte(255 / mask)
		for x := 0; x < p.w; x++ {
			v := src[x/per] >> (8 - p.depth*(x%per+1)) & mask
			o := dst[4*x : 4*x+4]
			if p.ctype == 3 {
				if int(v) >= p.paletteN {
					o[0], o[1], o[2], o[3] = 0, 0, 0, 255 // as Go's decoder, an index past the palette is opaque black
					continue
				}
				c := p.palette[v]
				o[0], o[1], o[2], o[3] = c[0], c[1], c[2], c[3]
				continue
			}
			g := v * scale
			o[0], o[1], o[2], o[3] = g, g, g, 255
			if p.hasTRNS && uint16(v) == binary.BigEndian.Uint16(p.trns)&uint16(mask) {
				o[3] = 0
			}
		}
	case p.ctype == 0:
		n := p.depth / 8
		for x := 0; x < p.w; x++ {
			g := src[x*n]
			o := dst[4*x : 4*x+4]
			o[0], o[1], o[2], o[3] = g, g, g, 255
			if p.hasTRNS && sample(src[x*n:], n) == binary.BigEndian.Uint16(p.trns)&(1<<p.depth-1) {
				o[3] = 0
			}
		}
	case p.ctype == 2:
		n := p.depth / 8
		for x := 0; x < p.w; x++ {
			s := src[3*n*x:]
			o := dst[4*x : 4*x+4]
			o[0], o[1], o[2], o[3] = s[0], s[n], s[2*n], 255
			if p.hasTRNS && sample(s, n) == binary.BigEndian.Uint16(p.trns[0:])&(1<<p.depth-1) &&
				sample(s[n:], n) == binary.BigEndian.Uint16(p.trns[2:])&(1<<p.depth-1) &&
				sample(s[2*n:], n) == binary.BigEndian.Uint16(p.trns[4:])&(1<<p.depth-1) {
				o[3] = 0
			}
		}
	case p.ctype == 4:
		n := p.depth / 8
		for x := 0; x < p.w; x++ {
			s := src[2*n*x:]
			o := dst[4*x : 4*x+4]
			o[0], o[1], o[2], o[3] = s[0], s[0], s[0], s[n]
		}
	case p.ctype == 6:
		if p.depth == 8 {
			copy(dst, src[:4*p.w])
			return
		}
		for x := 0; x < p.w; x++ {
			s := src[8*x:]
			o := dst[4*x : 4*x+4]
			o[0], o[1], o[2], o[3] = s[0], s[2], s[4], s[6]
		}
	}
}

// sample reads a 1- or 2-byte big-endian sample.
func sample(b []byte, n int) uint16 {
	if n == 1 {
		return uint16(b[0])
	}
	return binary.BigEndian.Uint16(b)
}

// idatReader reads the data of consecutive IDAT chunks, checking each
// chunk's CRC.
type idatReader struct {
	p    *PNGRows
	left uint32
	crc  hash.Hash32
	done bool
}

func (d *idatReader) Read(b []byte) (int, error) {
	for d.left == 0 {
		if d.done {
			return 0, io.EOF
		}
		if err := d.p.checkCRC(d.crc); err != nil {
			return 0, err
		}
		length, typ, err := d.p.chunkHeader()
		if err != nil {
			return 0, err
		}
		if typ != "IDAT" {
			d.done = true // the rows' bytes are all in the IDATs read so far
			return 0, io.EOF
		}
		d.left = length
		d.crc = crc32.NewIEEE()
		d.crc.Write([]byte("IDAT"))
	}
	if uint32(len(b)) > d.left {
		b = b[:d.left]
	}
	n, err := d.p.r.Read(b)
	d.crc.Write(b[:n])
	d.left -= uint32(n)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}
