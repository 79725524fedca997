package geocode

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps path read-only, pre-faulting the pages (MAP_POPULATE) so the
// first queries do not wait for the disk; unmap releases the mapping.
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
	size := fi.Size()
	if size < headerSize || size > 1<<36 {
		return nil, nil, fmt.Errorf("bad index size %d", size)
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return readWhole(f, size)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
