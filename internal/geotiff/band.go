package geotiff

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"golang.org/x/image/tiff/lzw"
)

// TIFF tags of the pixel layout, read by DecodeBand.
const (
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagPredictor       = 317
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagSampleFormat    = 339
)

// maxBlocks bounds the strips or tiles of an image.
const maxBlocks = 1 << 20

// Band is a single-band GeoTIFF's samples as numbers: an elevation model or
// any other grid of values.
type Band struct {
	Info
	// Data holds Width*Height samples, row by row from the top, converted
	// to float32 (Float64 samples lose the digits float32 cannot hold).
	Data []float32
	// Type names the sample type: Byte, Int8, UInt16, Int16, UInt32,
	// Int32, Float32, Float64 (GDAL's names).
	Type string
}

// DecodeBand reads a single-band GeoTIFF of unsigned or signed integers
// (8, 16, 32 bits) or IEEE floats (32, 64 bits), in strips or tiles,
// uncompressed or compressed with LZW or Deflate, with the horizontal (2) or
// floating-point (3) predictor: the forms gdal_translate and most DEM
// producers write. The georeferencing is read as Decode reads it.
func DecodeBand(r io.ReaderAt, size int64, lim Limits) (*Band, error) {
	tags, err := readTags(r, size)
	if err != nil {
		return nil, err
	}
	info, err := ReadInfo(r, size)
	if err != nil {
		return nil, err
	}
	if err := lim.check(info); err != nil {
		return nil, err
	}
	w, h, maxPx := info.Width, info.Height, lim.maxPixels()
	num := func(tag int, def float64) float64 {
		if v := tags.nums[tag]; len(v) > 0 {
			return v[0]
		}
		return def
	}
	if spp := num(tagSamplesPerPixel, 1); spp != 1 {
		return nil, fmt.Errorf("%w: %g samples per pixel: one band is read", ErrFormat, spp)
	}
	bits, format := int(num(tagBitsPerSample, 1)), int(num(tagSampleFormat, 1))
	typ, ok := sampleTypes[[2]int{format, bits}]
	if !ok {
		return nil, fmt.Errorf("%w: %d-bit samples of format %d (unsigned or signed integers of 8, 16, 32 bits, or floats of 32, 64 bits are read)", ErrFormat, bits, format)
	}
	bps := bits / 8
	comp, pred := int(num(tagCompression, 1)), int(num(tagPredictor, 1))
	if comp != 1 && comp != 5 && comp != 8 && comp != 32946 {
		return nil, fmt.Errorf("%w: compression %d (none, LZW and Deflate are read)", ErrFormat, comp)
	}
	if pred < 1 || pred > 3 || pred == 2 && format == 3 || pred == 3 && format != 3 {
		return nil, fmt.Errorf("%w: predictor %d for sample format %d", ErrFormat, pred, format)
	}
	// The blocks: tiles, or strips (blocks as wide as the image).
	bw, bh := w, int(num(tagRowsPerStrip, float64(h)))
	offs, counts := tags.nums[tagStripOffsets], tags.nums[tagStripByteCounts]
	if _, tiled := tags.nums[tagTileWidth]; tiled {
		bw, bh = int(num(tagTileWidth, 0)), int(num(tagTileLength, 0))
		offs, counts = tags.nums[tagTileOffsets], tags.nums[tagTileByteCounts]
	}
	bh = min(bh, h)
	if bw <= 0 || bh <= 0 || bw > 1<<20 || bh > 1<<24 || int64(bw)*int64(bh) > maxPx {
		return nil, fmt.Errorf("%w: blocks of %dx%d pixels", ErrFormat, bw, bh)
	}
	across, down := (w+bw-1)/bw, (h+bh-1)/bh
	if len(offs) != across*down || len(counts) != len(offs) {
		return nil, fmt.Errorf("%w: %d block offsets and %d byte counts for %d blocks", ErrFormat, len(offs), len(counts), across*down)
	}
	b := &Band{Info: info, Data: make([]float32, w*h), Type: typ}
	rowBytes := bw * bps
	block := make([]byte, rowBytes*bh)
	for k := range offs {
		bx, by := k%across, k/across
		rows := bh
		if bw == w { // a strip: the last one holds the rows left
			rows = min(bh, h-by*bh)
		}
		off, n := int64(offs[k]), int64(counts[k])
		if off < 0 || n < 0 || off > size || n > size-off {
			return nil, fmt.Errorf("%w: block %d lies outside the file", ErrFormat, k)
		}
		data := block[:rowBytes*rows]
		if err := readBlock(io.NewSectionReader(r, off, n), comp, data); err != nil {
			return nil, fmt.Errorf("%w: block %d: %v", ErrFormat, k, err)
		}
		for y := range rows {
			row := data[y*rowBytes : (y+1)*rowBytes]
			switch pred {
			case 2:
				undoHorizontal(row, bps, tags.bo)
			case 3:
				undoFloat(row, bps)
			}
			iy := by*bh + y
			if iy >= h {
				break
			}
			for x := range bw {
				ix := bx*bw + x
				if ix >= w {
					break
				}
				b.Data[iy*w+ix] = float32(sample(row[x*bps:], format, bps, tags.bo, pred == 3))
			}
		}
	}
	return b, nil
}

// readBlock fills data with a block's bytes, decompressed.
func readBlock(raw io.Reader, comp int, data []byte) error {
	var src io.ReadCloser = io.NopCloser(raw)
	switch comp {
	case 5:
		src = lzw.NewReader(raw, lzw.MSB, 8)
	case 8, 32946:
		zr, err := zlib.NewReader(raw)
		if err != nil {
			return err
		}
		src = zr
	}
	defer src.Close()
	_, err := io.ReadFull(src, data)
	return err
}

// sampleTypes names the sample formats read, by (SampleFormat, bits).
var sampleTypes = map[[2]int]string{
	{1, 8}: "Byte", {1, 16}: "UInt16", {1, 32}: "UInt32",
	{2, 8}: "Int8", {2, 16}: "Int16", {2, 32}: "Int32",
	{3, 32}: "Float32", {3, 64}: "Float64",
}

// sample decodes one sample (big-endian after the floating-point
// predictor, which stores bytes most significant first).
func sample(b []byte, format, bps int, bo binary.ByteOrder, msbFirst bool) float64 {
	if msbFirst {
		bo = binary.BigEndian
	}
	var u uint64
	switch bps {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(bo.Uint16(b))
	case 4:
		u = uint64(bo.Uint32(b))
	case 8:
		u = bo.Uint64(b)
	}
	switch format {
	case 2:
		shift := 64 - 8*bps
		return float64(int64(u<<shift) >> shift)
	case 3:
		if bps == 4 {
			return float64(math.Float32frombits(uint32(u)))
		}
		return math.Float64frombits(u)
	}
	return float64(u)
}

// undoHorizontal undoes the horizontal differencing predictor (2) of a row
// of integer samples: each sample was stored as its difference from the
// previous one, modulo its size.
func undoHorizontal(row []byte, bps int, bo binary.ByteOrder) {
	for i := bps; i+bps <= len(row); i += bps {
		switch bps {
		case 1:
			row[i] += row[i-1]
		case 2:
			bo.PutUint16(row[i:], bo.Uint16(row[i:])+bo.Uint16(row[i-2:]))
		case 4:
			bo.PutUint32(row[i:], bo.Uint32(row[i:])+bo.Uint32(row[i-4:]))
		}
	}
}

// undoFloat undoes the floating-point predictor (3): the row's bytes were
// regrouped by significance (every sample's most significant byte first)
// and then differenced byte by byte.
func undoFloat(row []byte, bps int) {
	for i := 1; i < len(row); i++ {
		row[i] += row[i-1]
	}
	n := len(row) / bps
	tmp := bytes.Clone(row)
	for x := range n {
		for k := range bps {
			row[x*bps+k] = tmp[k*n+x]
		}
	}
}
