package pmtiles

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
)

var gzipReaders sync.Pool

// decompress decodes b according to c, refusing output larger than limit.
func decompress(b []byte, c Compression, limit int64) ([]byte, error) {
	switch c {
	case CompressionNone:
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrFormat, len(b), limit)
		}
		return b, nil
	case CompressionGzip:
		var zr *gzip.Reader
		var err error
		if v, ok := gzipReaders.Get().(*gzip.Reader); ok {
			zr = v
			err = zr.Reset(bytes.NewReader(b))
		} else {
			zr, err = gzip.NewReader(bytes.NewReader(b))
		}
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		defer gzipReaders.Put(zr)
		// Guess 4x expansion, bounded by the limit.
		size := min(int64(len(b))*4+512, limit+1)
		buf := bytes.NewBuffer(make([]byte, 0, size))
		n, err := io.Copy(buf, io.LimitReader(zr, limit+1))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
		}
		if n > limit {
			return nil, fmt.Errorf("%w: decompressed data exceeds the limit of %d bytes", ErrFormat, limit)
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("%w: unsupported compression %s", ErrFormat, c)
}

// compress encodes b according to c (none or gzip).
func compress(b []byte, c Compression) ([]byte, error) {
	switch c {
	case CompressionNone:
		return b, nil
	case CompressionGzip:
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(b); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		if err := zw.Close(); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("pmtiles: cannot write compression %s", c)
}
