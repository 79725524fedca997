//go:build !linux

package geocode

import (
	"fmt"
	"os"
)

// mapFile reads the whole file (memory mapping is only used on Linux).
func mapFile(path string) (data []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() < headerSize || fi.Size() > 1<<36 {
		return nil, nil, fmt.Errorf("bad index size %d", fi.Size())
	}
	return readWhole(f, fi.Size())
}
