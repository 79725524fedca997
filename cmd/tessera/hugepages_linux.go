package main

import (
	"os"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// heapOnHugePages readies n bytes of heap on transparent huge pages, for a
// short process that fills its heap once and exits (tessera render).
//
// A cold render writes some 50 MB of fresh heap. In 4 KB pages that is about
// 12,500 page faults, a third of the process's cycles; in 2 MB pages it is
// some 25. The Go runtime maps its heap in pieces as it grows and advises
// nothing, so the heap is grown here by one block of n bytes, the block's
// range is advised MADV_HUGEPAGE, and the block is dropped: a collection
// frees it and the allocations that follow take their pages from it, lowest
// addresses first. Memory is committed only where it is written. The kernel
// heeds the advice when transparent_hugepage is madvise or always; elsewhere
// it changes nothing. GODEBUG=disablethp=1, the runtime's own switch for
// keeping its heap off huge pages (where the kernel's compaction of memory
// for them stalls), turns this off too. Call it with collection off
// (debug.SetGCPercent(-1)), or the allocation starts a collection of its
// own. It returns the range it advised (empty if none).
func heapOnHugePages(n int) (start, end uintptr) {
	if thpDisabled(os.Getenv("GODEBUG")) {
		return 0, 0
	}
	const huge = 2 << 20
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start = (p + huge - 1) &^ (huge - 1)
	end = (p + uintptr(n)) &^ (huge - 1)
	if end <= start {
		return 0, 0
	}
	if err := unix.Madvise(b[start-p:end-p], unix.MADV_HUGEPAGE); err != nil {
		// An old kernel, or THP compiled out: 4 KB pages, as before.
		start, end = 0, 0
	}
	runtime.KeepAlive(b)
	// A collection of the young heap (under 2 ms here) frees the block.
	// Run beside the work that follows, it took a core from the start of
	// the render, and the render's first allocations fell on fresh 4 KB
	// pages: 3 ms slower in alternating runs.
	runtime.GC()
	return start, end
}

// thpDisabled reports whether a GODEBUG value sets disablethp=1 (the last
// setting of a key wins, as in the runtime).
func thpDisabled(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "disablethp" {
			off = v == "1"
		}
	}
	return off
}
