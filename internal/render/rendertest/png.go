package rendertest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// PNGBomb returns a PNG of a few hundred bytes that declares w x h RGBA
// pixels and holds the compressed rows of only the first few: decoding
// it would allocate the whole picture before finding its data short.
func PNGBomb(w, h int) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, body []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(body)))
		out.Write(n[:])
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(body)
		out.WriteString(typ)
		out.Write(body)
		binary.BigEndian.PutUint32(n[:], c.Sum32())
		out.Write(n[:])
	}
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(w))
	binary.BigEndian.PutUint32(hdr[4:], uint32(h))
	hdr[8], hdr[9] = 8, 6 // 8 bits, RGBA
	chunk("IHDR", hdr[:])
	var rows bytes.Buffer
	z := zlib.NewWriter(&rows)
	z.Write(make([]byte, 4*(1+4*w))) // four rows of zeros, filter none
	z.Flush()
	chunk("IDAT", rows.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}
