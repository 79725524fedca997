package geotiff

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"io"
	"math"
	"sort"
)

// Encode writes img as an uncompressed RGBA GeoTIFF (one strip, straight
// alpha) placed by g (EPSG:4326 or EPSG:3857, PixelIsArea). It makes test
// data and small exports; GDAL reads what it writes.
func Encode(w io.Writer, img *image.NRGBA, g Georef) error {
	var keys []uint16
	switch g.EPSG {
	case EPSG4326:
		keys = []uint16{1, 1, 0, 3, keyModelType, 0, 1, modelGeographic, keyRasterType, 0, 1, 1, keyGeographicType, 0, 1, EPSG4326}
	case EPSG3857:
		keys = []uint16{1, 1, 0, 3, keyModelType, 0, 1, modelProjected, keyRasterType, 0, 1, 1, keyProjectedCSType, 0, 1, EPSG3857}
	default:
		return fmt.Errorf("encode geotiff: EPSG:%d is not supported", g.EPSG)
	}
	b := img.Bounds()
	wd, ht := b.Dx(), b.Dy()
	if wd <= 0 || ht <= 0 {
		return fmt.Errorf("encode geotiff: empty image")
	}
	pix := make([]byte, 0, wd*ht*4)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := img.PixOffset(b.Min.X, y)
		pix = append(pix, img.Pix[off:off+4*wd]...)
	}
	type entry struct {
		tag, typ uint16
		count    uint32
		data     []byte
	}
	le := binary.LittleEndian
	shorts := func(v ...uint16) []byte {
		out := make([]byte, 2*len(v))
		for i, x := range v {
			le.PutUint16(out[2*i:], x)
		}
		return out
	}
	longs := func(v ...uint32) []byte {
		out := make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(out[4*i:], x)
		}
		return out
	}
	doubles := func(v ...float64) []byte {
		out := make([]byte, 8*len(v))
		for i, x := range v {
			le.PutUint64(out[8*i:], math.Float64bits(x))
		}
		return out
	}
	const headerLen = 8
	pixOff := uint32(headerLen)
	entries := []entry{
		{256, 4, 1, longs(uint32(wd))},
		{257, 4, 1, longs(uint32(ht))},
		{258, 3, 4, shorts(8, 8, 8, 8)},
		{259, 3, 1, shorts(1)},
		{262, 3, 1, shorts(2)},
		{273, 4, 1, longs(pixOff)},
		{277, 3, 1, shorts(4)},
		{278, 4, 1, longs(uint32(ht))},
		{279, 4, 1, longs(uint32(len(pix)))},
		{284, 3, 1, shorts(1)},
		{338, 3, 1, shorts(2)},
		{tagModelPixelScale, 12, 3, doubles(g.ScaleX, g.ScaleY, 0)},
		{tagModelTiepoint, 12, 6, doubles(0, 0, 0, g.OriginX, g.OriginY, 0)},
		{tagGeoKeyDirectory, 3, uint32(len(keys)), shorts(keys...)},
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].tag < entries[j].tag })
	ifdOff := pixOff + uint32(len(pix))
	ifdOff += ifdOff & 1
	extraOff := ifdOff + 2 + 12*uint32(len(entries)) + 4
	var buf, extra bytes.Buffer
	buf.WriteString("II*\x00")
	buf.Write(longs(ifdOff))
	buf.Write(pix)
	for uint32(buf.Len()) < ifdOff {
		buf.WriteByte(0)
	}
	buf.Write(shorts(uint16(len(entries))))
	for _, e := range entries {
		buf.Write(shorts(e.tag, e.typ))
		buf.Write(longs(e.count))
		if len(e.data) <= 4 {
			v := make([]byte, 4)
			copy(v, e.data)
			buf.Write(v)
			continue
		}
		buf.Write(longs(extraOff + uint32(extra.Len())))
		extra.Write(e.data)
	}
	buf.Write(longs(0)) // no next directory
	buf.Write(extra.Bytes())
	_, err := w.Write(buf.Bytes())
	if err != nil {
		return fmt.Errorf("encode geotiff: %w", err)
	}
	return nil
}
