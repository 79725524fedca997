package basisu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
)

// Identifier is the 12 bytes every KTX 2.0 file begins with.
var Identifier = [12]byte{0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'}

// MediaType is the media type of KTX 2.0 files.
const MediaType = "image/ktx2"

// KTX 2.0 and data format descriptor values the encoder writes.
const (
	supercompressionBasisLZ = 1
	headerSize              = 80
	levelIndexEntrySize     = 24
	modelETC1S              = 163 // KHR_DF_MODEL_ETC1S
	primariesBT709          = 1
	transferSRGB            = 2
	channelETC1SRGB         = 0
	channelETC1SAAA         = 15
	sgdHeaderSize           = 20
	imageDescSize           = 20
)

// Options tune the encoder.
type Options struct {
	// Endpoints and Selectors cap the codebooks (DefaultEndpoints and
	// DefaultSelectors when zero; at least 2 and 4, at most 16384 and
	// 16319, the format's bounds). Larger codebooks keep more detail and
	// make larger files.
	Endpoints, Selectors int
}

// Default codebook sizes, chosen on rendered map tiles (docs/benchmarks.md).
const (
	DefaultEndpoints = 1024
	DefaultSelectors = 768
)

// ErrImage is wrapped when an image cannot be encoded.
var ErrImage = errors.New("basisu: image cannot be encoded")

// Encode writes img as a KTX 2.0 file with BasisLZ/ETC1S supercompression.
func Encode(w io.Writer, img image.Image, opt Options) error {
	data, err := EncodeBytes(img, opt)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write ktx2: %w", err)
	}
	return nil
}

// EncodeBytes returns img as a KTX 2.0 file with BasisLZ/ETC1S
// supercompression.
func EncodeBytes(img image.Image, opt Options) ([]byte, error) {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	if width <= 0 || height <= 0 || width > 1<<14 || height > 1<<14 {
		return nil, fmt.Errorf("%w: size %dx%d (1 to 16384 pixels a side)", ErrImage, width, height)
	}
	if opt.Endpoints <= 0 {
		opt.Endpoints = DefaultEndpoints
	}
	if opt.Selectors <= 0 {
		opt.Selectors = DefaultSelectors
	}
	opt.Endpoints = min(max(opt.Endpoints, 2), 1<<14)
	opt.Selectors = min(max(opt.Selectors, 4), 1<<14-selectorHistorySize-1)
	px := toNRGBA(img)
	alpha := false
	for i := 3; i < len(px.Pix) && !alpha; i += 4 {
		alpha = px.Pix[i] != 255
	}
	bw, bh := (width+3)/4, (height+3)/4
	nb := bw * bh
	blocks := make([]block, 0, nb*2)
	blocks = append(blocks, cutBlocks(px, bw, bh, false)...)
	if alpha {
		blocks = append(blocks, cutBlocks(px, bw, bh, true)...)
	}
	cb := quantize(blocks, opt.Endpoints, opt.Selectors)
	// Two entries at least, so that every Huffman alphabet has two symbols.
	for len(cb.endpoints) < 2 {
		cb.endpoints = append(cb.endpoints, endpoint{c: [3]uint8{31, 31, 31}})
	}
	for len(cb.selectors) < 2 {
		cb.selectors = append(cb.selectors, selector{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	}
	nEP, nSel := len(cb.endpoints), len(cb.selectors)
	slices := [][]op{sliceOps(cb.epIndex[:nb], cb.selIndex[:nb], bw, bh, nEP, nSel)}
	if alpha {
		slices = append(slices, sliceOps(cb.epIndex[nb:], cb.selIndex[nb:], bw, bh, nEP, nSel))
	}
	codes, tables := sliceCodes(slices, nEP, nSel)
	var sliceData [][]byte
	for _, ops := range slices {
		var sw bitWriter
		writeOps(&sw, ops, codes)
		sliceData = append(sliceData, sw.bytes())
	}
	return container(containerInput{
		width: width, height: height, alpha: alpha,
		nEP: nEP, nSel: nSel,
		endpoints: writeEndpoints(cb.endpoints),
		selectors: writeSelectors(cb.selectors),
		tables:    tables,
		slices:    sliceData,
	}), nil
}

// toNRGBA returns img with straight alpha.
func toNRGBA(img image.Image) *image.NRGBA {
	if m, ok := img.(*image.NRGBA); ok && m.Rect.Min == (image.Point{}) {
		return m
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	if m, ok := img.(*image.RGBA); ok {
		// The renderer's premultiplied pictures, converted row by row.
		for y := 0; y < b.Dy(); y++ {
			src := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:4*b.Dx()]
			dst := out.Pix[y*out.Stride:][:4*b.Dx()]
			for i := 0; i < len(src); i += 4 {
				a := uint32(src[i+3])
				switch a {
				case 255:
					copy(dst[i:i+4], src[i:i+4])
				case 0:
				default:
					for c := 0; c < 3; c++ {
						dst[i+c] = uint8(min(255, (uint32(src[i+c])*255+a/2)/a))
					}
					dst[i+3] = uint8(a)
				}
			}
		}
		return out
	}
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// cutBlocks cuts the image into 4x4 blocks in raster order, repeating the
// last row and column to fill partial blocks; with alpha set, the blocks
// hold the alpha values as grey.
func cutBlocks(m *image.NRGBA, bw, bh int, alpha bool) []block {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := make([]block, bw*bh)
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			b := &out[by*bw+bx]
			for y := 0; y < 4; y++ {
				py := min(by*4+y, h-1)
				for x := 0; x < 4; x++ {
					px := min(bx*4+x, w-1)
					p := m.Pix[py*m.Stride+px*4:]
					if alpha {
						b[y*4+x] = [3]uint8{p[3], p[3], p[3]}
					} else {
						b[y*4+x] = [3]uint8{p[0], p[1], p[2]}
					}
				}
			}
		}
	}
	return out
}

// containerInput is what the KTX 2.0 container holds.
type containerInput struct {
	width, height int
	alpha         bool
	nEP, nSel     int
	endpoints     []byte
	selectors     []byte
	tables        []byte
	slices        [][]byte // RGB, then alpha if any
}

// writerKey is the KTXwriter metadata the files carry.
const writerKey = "KTXwriter\x00Tessera basisu\x00"

// container lays out a KTX 2.0 file: header, level index (one level), data
// format descriptor, key/value data, BasisLZ global data (8-byte aligned),
// then the level's slices.
func container(in containerInput) []byte {
	le := binary.LittleEndian
	samples := 1
	if in.alpha {
		samples = 2
	}
	dfdLen := 4 + 24 + 16*samples
	dfdOff := headerSize + levelIndexEntrySize
	kvdOff := dfdOff + dfdLen
	kvdLen := 4 + len(writerKey)
	kvdLen += (4 - kvdLen%4) % 4
	sgdOff := kvdOff + kvdLen
	sgdOff += (8 - sgdOff%8) % 8
	sgdLen := sgdHeaderSize + imageDescSize + len(in.endpoints) + len(in.selectors) + len(in.tables)
	levelOff := sgdOff + sgdLen
	levelLen := 0
	for _, s := range in.slices {
		levelLen += len(s)
	}
	out := make([]byte, levelOff+levelLen)
	copy(out, Identifier[:])
	p := 12
	u32 := func(v int) { le.PutUint32(out[p:], uint32(v)); p += 4 }
	u64 := func(v int) { le.PutUint64(out[p:], uint64(v)); p += 8 }
	u32(0)                       // vkFormat: VK_FORMAT_UNDEFINED
	u32(1)                       // typeSize
	u32(in.width)                // pixelWidth
	u32(in.height)               // pixelHeight
	u32(0)                       // pixelDepth
	u32(0)                       // layerCount
	u32(1)                       // faceCount
	u32(1)                       // levelCount
	u32(supercompressionBasisLZ) // supercompressionScheme
	u32(dfdOff)
	u32(dfdLen)
	u32(kvdOff)
	u32(kvdLen)
	u64(sgdOff)
	u64(sgdLen)
	// Level index.
	u64(levelOff)
	u64(levelLen)
	u64(0) // uncompressedByteLength: 0 for BasisLZ
	// Data format descriptor: one basic block.
	u32(dfdLen)
	u32(0) // vendor Khronos, descriptor type basic
	le.PutUint16(out[p:], 2)
	le.PutUint16(out[p+2:], uint16(24+16*samples))
	p += 4
	copy(out[p:], []byte{modelETC1S, primariesBT709, transferSRGB, 0, 3, 3, 0, 0})
	p += 8 // bytesPlane0..7 stay 0 (supercompressed)
	p += 8
	for s := 0; s < samples; s++ {
		ch := byte(channelETC1SRGB)
		if s == 1 {
			ch = channelETC1SAAA
		}
		le.PutUint16(out[p:], uint16(64*s)) // bitOffset
		out[p+2] = 63                       // bitLength - 1
		out[p+3] = ch
		p += 8 // sample positions 0
		u32(0)
		u32(-1)
	}
	// Key/value data.
	p = kvdOff
	u32(len(writerKey))
	copy(out[p:], writerKey)
	// Global data.
	p = sgdOff
	le.PutUint16(out[p:], uint16(in.nEP))
	le.PutUint16(out[p+2:], uint16(in.nSel))
	p += 4
	u32(len(in.endpoints))
	u32(len(in.selectors))
	u32(len(in.tables))
	u32(0) // extendedByteLength
	u32(0) // imageFlags
	u32(0)
	u32(len(in.slices[0]))
	if len(in.slices) > 1 {
		u32(len(in.slices[0]))
		u32(len(in.slices[1]))
	} else {
		u32(0)
		u32(0)
	}
	p += copy(out[p:], in.endpoints)
	p += copy(out[p:], in.selectors)
	copy(out[p:], in.tables)
	p = levelOff
	for _, s := range in.slices {
		p += copy(out[p:], s)
	}
	return out
}
