//go:build unix

package pmtiles

import (
	"os"
	"syscall"
)

// mapFile maps the whole file read-only; it returns nil when mapping is not
// possible (the caller then uses positioned reads).
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}
