package pyramid

import (
	"bytes"
	"compress/zlib"
	"hash/crc32"
	"testing"
)

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

func zlibBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	z.Write(b)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
