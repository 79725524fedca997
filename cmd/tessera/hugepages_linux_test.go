package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapOnHugePages checks that the heap block is advised: every mapping
// of the advised range carries the kernel's "hg" flag (VM_HUGEPAGE) in
// /proc/self/smaps, and the block's memory is then used by allocations.
// The check runs in a new process of the test binary, as tessera render
// calls it: first, with little free heap below the block.
func TestHeapOnHugePages(t *testing.T) {
	if os.Getenv("TESSERA_HUGEPAGES_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHeapOnHugePages$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TESSERA_HUGEPAGES_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("in a new process: %v\n%s", err, out)
		}
		t.Logf("in a new process:\n%s", out)
		return
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 16 << 20
	start, end := heapOnHugePages(n)
	if start == 0 {
		t.Skip("madvise(MADV_HUGEPAGE) is refused by this kernel")
	}
	if end-start < n-4<<20 {
		t.Fatalf("advised %d bytes of a %d-byte block", end-start, n)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lo, hi uint64
	covered := uint64(0)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			a, b, _ := strings.Cut(fields[0], "-")
			lo, _ = strconv.ParseUint(a, 16, 64)
			hi, _ = strconv.ParseUint(b, 16, 64)
			continue
		}
		if strings.HasPrefix(line, "VmFlags:") && hi > uint64(start) && lo < uint64(end) {
			if !strings.Contains(line, " hg") {
				t.Errorf("mapping %x-%x of the advised range %x-%x lacks the hg flag: %s", lo, hi, start, end, line)
			}
			covered += min(hi, uint64(end)) - max(lo, uint64(start))
		}
	}
	if covered != uint64(end-start) {
		t.Errorf("smaps shows %d bytes of the advised %d", covered, end-start)
	}

	// Once collected, the block's pages serve new allocations.
	runtime.GC()
	inside := 0
	keep := make([][]byte, 0, 4096)
	for range 4096 {
		b := make([]byte, 4096)
		keep = append(keep, b)
		if p := uintptr(unsafe.Pointer(&b[0])); p >= start && p < end {
			inside++
		}
	}
	if inside < len(keep)/2 {
		t.Errorf("%d of %d new 4 KB objects lie in the advised range", inside, len(keep))
	}
}

func TestTHPDisabled(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		off     bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"gctrace=1,disablethp=1", true},
		{"disablethp=0", false},
		{"disablethp=1,disablethp=0", false},
		{"xdisablethp=1", false},
	} {
		if got := thpDisabled(tc.godebug); got != tc.off {
			t.Errorf("GODEBUG=%q: disabled %v, want %v", tc.godebug, got, tc.off)
		}
	}
	t.Setenv("GODEBUG", "disablethp=1")
	if start, end := heapOnHugePages(4 << 20); start != 0 || end != 0 {
		t.Errorf("with disablethp=1 the range %x-%x was advised", start, end)
	}
}
