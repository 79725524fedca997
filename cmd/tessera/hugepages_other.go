//go:build !linux

package main

// heapOnHugePages does nothing where transparent huge pages cannot be
// asked for.
func heapOnHugePages(int) (start, end uintptr) { return 0, 0 }
