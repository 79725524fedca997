// Package geotiff reads GeoTIFF images: the pixels through
// golang.org/x/image/tiff (Decode), or, for single-band grids of integer or
// floating-point samples such as elevation models, by its own strip and tile
// reader (DecodeBand), and the georeferencing from the GeoTIFF tags of
// the first image directory (ModelPixelScale and ModelTiepoint, or a
// ModelTransformation without rotation, and the GeoKeyDirectory naming the
// coordinate system). Only north-up images in EPSG:4326 (longitude and
// latitude in degrees) or EPSG:3857 (web mercator metres) are accepted:
// these are the ones Tessera tiles without a reprojection library.
package geotiff

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/tiff"
)

// ErrFormat is wrapped by every error about the file itself: not a TIFF,
// a damaged one, missing or unsupported georeferencing, too large. Other
// errors (reading the file) are the reader's.
var ErrFormat = errors.New("not a usable GeoTIFF")

// The coordinate systems accepted.
const (
	EPSG4326 = 4326 // WGS 84 longitude/latitude, degrees
	EPSG3857 = 3857 // WGS 84 / Pseudo-Mercator, metres
)

// TIFF tags read here.
const (
	tagImageWidth          = 256
	tagImageLength         = 257
	tagModelPixelScale     = 33550
	tagModelTiepoint       = 33922
	tagModelTransformation = 34264
	tagGeoKeyDirectory     = 34735
	tagGDALNoData          = 42113
)

// GeoKeys read here.
const (
	keyModelType       = 1024
	keyRasterType      = 1025
	keyGeographicType  = 2048
	keyProjectedCSType = 3072
	rasterPixelIsPoint = 2
	modelProjected     = 1
	modelGeographic    = 2
)

// Georef places an image's pixels: the corner of pixel (col, row) is at
// X = OriginX + col*ScaleX, Y = OriginY - row*ScaleY in the EPSG system.
type Georef struct {
	EPSG             int
	OriginX, OriginY float64
	ScaleX, ScaleY   float64 // both positive: columns go east, rows south
	// NoData is the GDAL_NODATA value when the file names one.
	NoData *float64
}

// Info is what the tags of a GeoTIFF say, read without decoding pixels.
type Info struct {
	Width, Height int
	Georef
}

// Bounds returns the image's extent in its coordinate system:
// minX, minY, maxX, maxY.
func (i Info) Bounds() [4]float64 {
	return [4]float64{i.OriginX, i.OriginY - float64(i.Height)*i.ScaleY, i.OriginX + float64(i.Width)*i.ScaleX, i.OriginY}
}

// Limits bound what Decode accepts.
type Limits struct {
	// MaxPixels is the largest width*height decoded (the whole image is
	// held in memory); DefaultMaxPixels when zero.
	MaxPixels int64
}

// maxPixels is the bound on an image's pixels.
func (lim Limits) maxPixels() int64 {
	if lim.MaxPixels <= 0 {
		return DefaultMaxPixels
	}
	return lim.MaxPixels
}

// check refuses an image larger than the limits.
func (lim Limits) check(info Info) error {
	if int64(info.Width)*int64(info.Height) > lim.maxPixels() {
		return fmt.Errorf("%w: %dx%d pixels is more than the limit of %d pixels", ErrFormat, info.Width, info.Height, lim.maxPixels())
	}
	return nil
}

// DefaultMaxPixels is the default bound on an image's pixels (about 1 GB
// of memory at 16 bytes per pixel in the worst case).
const DefaultMaxPixels = 64 << 20

// Image is a decoded GeoTIFF.
type Image struct {
	Info
	Image image.Image
}

// ReadInfo reads the georeferencing and size of the GeoTIFF in r (of the
// given size) without decoding its pixels.
func ReadInfo(r io.ReaderAt, size int64) (Info, error) {
	tags, err := readTags(r, size)
	if err != nil {
		return Info{}, err
	}
	var info Info
	w, h := tags.first(tagImageWidth), tags.first(tagImageLength)
	if w <= 0 || h <= 0 || w > 1<<31-1 || h > 1<<31-1 {
		return Info{}, fmt.Errorf("%w: the image has no valid width and height", ErrFormat)
	}
	info.Width, info.Height = int(w), int(h)
	if info.Georef, err = tags.georef(); err != nil {
		return Info{}, err
	}
	return info, nil
}

// Decode reads a whole GeoTIFF: its georeferencing and its pixels.
func Decode(r io.ReaderAt, size int64, lim Limits) (*Image, error) {
	info, err := ReadInfo(r, size)
	if err != nil {
		return nil, err
	}
	if err := lim.check(info); err != nil {
		return nil, err
	}
	img, err := tiff.Decode(io.NewSectionReader(r, 0, size))
	if err != nil {
		var fe tiff.FormatError
		var ue tiff.UnsupportedError
		if errors.As(err, &fe) || errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return nil, fmt.Errorf("decode tiff: %w", err)
	}
	if b := img.Bounds(); b.Dx() != info.Width || b.Dy() != info.Height {
		return nil, fmt.Errorf("%w: the pixels are %dx%d, the tags say %dx%d", ErrFormat, b.Dx(), b.Dy(), info.Width, info.Height)
	}
	return &Image{Info: info, Image: img}, nil
}

// tagSet holds the values of the tags read, as float64s (numbers) or a
// string (ASCII).
type tagSet struct {
	nums map[int][]float64
	text map[int]string
	// bo is the file's byte order.
	bo binary.ByteOrder
}

func (t tagSet) first(tag int) float64 {
	if v := t.nums[tag]; len(v) > 0 {
		return v[0]
	}
	return 0
}

// interesting lists the tags kept, with the most values accepted.
var interesting = map[int]int{
	tagImageWidth: 1, tagImageLength: 1,
	tagModelPixelScale: 3, tagModelTiepoint: 6 * 1024, tagModelTransformation: 16,
	tagGeoKeyDirectory: 4 + 4*1024, tagGDALNoData: 256,
	tagBitsPerSample: 64, tagCompression: 1, tagSamplesPerPixel: 1, tagPlanarConfig: 1, tagPredictor: 1, tagSampleFormat: 64,
	tagRowsPerStrip: 1, tagTileWidth: 1, tagTileLength: 1,
	tagStripOffsets: maxBlocks, tagStripByteCounts: maxBlocks, tagTileOffsets: maxBlocks, tagTileByteCounts: maxBlocks,
}

// typeSizes gives the byte size of each TIFF field type (0: unknown).
var typeSizes = [...]int{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8}

// readTags reads the interesting tags of the first image directory.
func readTags(r io.ReaderAt, size int64) (tagSet, error) {
	head := make([]byte, 8)
	if _, err := r.ReadAt(head, 0); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return tagSet{}, fmt.Errorf("%w: the file is too short for a TIFF", ErrFormat)
		}
		return tagSet{}, fmt.Errorf("read tiff header: %w", err)
	}
	var bo binary.ByteOrder
	switch string(head[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	case "II+\x00", "MM\x00+":
		return tagSet{}, fmt.Errorf("%w: BigTIFF files are not supported", ErrFormat)
	default:
		return tagSet{}, fmt.Errorf("%w: not a TIFF file", ErrFormat)
	}
	read := func(off int64, n int) ([]byte, error) {
		if off < 0 || n < 0 || off > size || int64(n) > size-off {
			return nil, fmt.Errorf("%w: a tag points outside the file", ErrFormat)
		}
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: the file is truncated", ErrFormat)
			}
			return nil, fmt.Errorf("read tiff: %w", err)
		}
		return b, nil
	}
	ifd := int64(bo.Uint32(head[4:]))
	cnt, err := read(ifd, 2)
	if err != nil {
		return tagSet{}, err
	}
	n := int(bo.Uint16(cnt))
	entries, err := read(ifd+2, 12*n)
	if err != nil {
		return tagSet{}, err
	}
	tags := tagSet{nums: map[int][]float64{}, text: map[int]string{}, bo: bo}
	for i := 0; i < n; i++ {
		e := entries[12*i : 12*i+12]
		tag, typ, count := int(bo.Uint16(e)), int(bo.Uint16(e[2:])), int64(bo.Uint32(e[4:]))
		maxCount, ok := interesting[tag]
		if !ok {
			continue
		}
		if typ <= 0 || typ >= len(typeSizes) || typeSizes[typ] == 0 {
			return tagSet{}, fmt.Errorf("%w: tag %d has an unknown field type %d", ErrFormat, tag, typ)
		}
		if count > int64(maxCount) {
			return tagSet{}, fmt.Errorf("%w: tag %d has %d values, more than the %d accepted", ErrFormat, tag, count, maxCount)
		}
		sz := typeSizes[typ] * int(count)
		data := e[8:12]
		if sz > 4 {
			if data, err = read(int64(bo.Uint32(e[8:])), sz); err != nil {
				return tagSet{}, err
			}
		}
		data = data[:sz]
		if typ == 2 { // ASCII
			tags.text[tag] = strings.TrimRight(string(data), "\x00")
			continue
		}
		vals := make([]float64, count)
		for j := range vals {
			vals[j] = number(bo, typ, data[j*typeSizes[typ]:])
		}
		tags.nums[tag] = vals
	}
	return tags, nil
}

// number decodes one value of a numeric field type.
func number(bo binary.ByteOrder, typ int, b []byte) float64 {
	switch typ {
	case 1, 7: // BYTE, UNDEFINED
		return float64(b[0])
	case 6: // SBYTE
		return float64(int8(b[0]))
	case 3:
		return float64(bo.Uint16(b))
	case 8:
		return float64(int16(bo.Uint16(b)))
	case 4:
		return float64(bo.Uint32(b))
	case 9:
		return float64(int32(bo.Uint32(b)))
	case 5, 10: // RATIONAL, SRATIONAL
		num, den := float64(bo.Uint32(b)), float64(bo.Uint32(b[4:]))
		if typ == 10 {
			num, den = float64(int32(bo.Uint32(b))), float64(int32(bo.Uint32(b[4:])))
		}
		if den == 0 {
			return math.NaN()
		}
		return num / den
	case 11:
		return float64(math.Float32frombits(bo.Uint32(b)))
	case 12:
		return math.Float64frombits(bo.Uint64(b))
	}
	return math.NaN()
}

// geoKeys reads the GeoKeyDirectory's keys whose values sit in the
// directory itself (the SHORT ones, which are all the keys used here).
func (t tagSet) geoKeys() (map[int]int, error) {
	dir := t.nums[tagGeoKeyDirectory]
	if len(dir) < 4 {
		return nil, fmt.Errorf("%w: no GeoKeyDirectory tag: the TIFF is not georeferenced", ErrFormat)
	}
	n := int(dir[3])
	if 4+4*n > len(dir) {
		return nil, fmt.Errorf("%w: the GeoKeyDirectory names %d keys but holds %d", ErrFormat, n, (len(dir)-4)/4)
	}
	keys := map[int]int{}
	for i := 0; i < n; i++ {
		k := dir[4+4*i : 8+4*i]
		if k[1] == 0 { // the value is in the entry itself
			keys[int(k[0])] = int(k[3])
		}
	}
	return keys, nil
}

// epsgMercator lists the codes taken as EPSG:3857 (older names of the same
// system).
var epsgMercator = map[int]bool{3857: true, 3785: true, 900913: true, 102100: true, 102113: true}

// georef reads the coordinate system and the pixel placement.
func (t tagSet) georef() (Georef, error) {
	keys, err := t.geoKeys()
	if err != nil {
		return Georef{}, err
	}
	var g Georef
	switch {
	case epsgMercator[keys[keyProjectedCSType]]:
		g.EPSG = EPSG3857
	case keys[keyModelType] != modelProjected && keys[keyGeographicType] == EPSG4326:
		g.EPSG = EPSG4326
	case keys[keyProjectedCSType] != 0:
		return Georef{}, fmt.Errorf("%w: the projected coordinate system EPSG:%d is not supported: reproject to EPSG:4326 or EPSG:3857 (for example with gdalwarp -t_srs EPSG:3857)", ErrFormat, keys[keyProjectedCSType])
	case keys[keyGeographicType] != 0:
		return Georef{}, fmt.Errorf("%w: the geographic coordinate system EPSG:%d is not supported: reproject to EPSG:4326 or EPSG:3857", ErrFormat, keys[keyGeographicType])
	default:
		return Georef{}, fmt.Errorf("%w: the GeoKeys name no EPSG coordinate system: only EPSG:4326 and EPSG:3857 are supported", ErrFormat)
	}
	scale, tie, tr := t.nums[tagModelPixelScale], t.nums[tagModelTiepoint], t.nums[tagModelTransformation]
	switch {
	case len(scale) >= 2 && len(tie) >= 6:
		g.ScaleX, g.ScaleY = scale[0], scale[1]
		g.OriginX = tie[3] - tie[0]*g.ScaleX
		g.OriginY = tie[4] + tie[1]*g.ScaleY
	case len(tr) == 16:
		if tr[1] != 0 || tr[4] != 0 {
			return Georef{}, fmt.Errorf("%w: the image is rotated (ModelTransformation): only north-up images are supported", ErrFormat)
		}
		g.ScaleX, g.ScaleY, g.OriginX, g.OriginY = tr[0], -tr[5], tr[3], tr[7]
	default:
		return Georef{}, fmt.Errorf("%w: no ModelPixelScale and ModelTiepoint (nor ModelTransformation): the pixels are not placed", ErrFormat)
	}
	if keys[keyRasterType] == rasterPixelIsPoint {
		// The tie point names a pixel's centre: move to its corner.
		g.OriginX -= g.ScaleX / 2
		g.OriginY += g.ScaleY / 2
	}
	for _, v := range []float64{g.ScaleX, g.ScaleY, g.OriginX, g.OriginY} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Georef{}, fmt.Errorf("%w: the georeferencing has a value that is not a number", ErrFormat)
		}
	}
	if g.ScaleX <= 0 || g.ScaleY <= 0 {
		return Georef{}, fmt.Errorf("%w: pixel scale %g x %g: only north-up images with positive pixel sizes are supported", ErrFormat, g.ScaleX, g.ScaleY)
	}
	if s, ok := t.text[tagGDALNoData]; ok {
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			g.NoData = &v
		}
	}
	return g, nil
}
