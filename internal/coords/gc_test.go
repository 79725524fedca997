package coords

import (
	"runtime"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkIndexGC is what the index costs the garbage collector: a full
// collection with the index live (the mark phase visits every object and
// scans every pointer-holding word of the long-lived heap; the index is
// pointer-free, see text.go).
func BenchmarkIndexGC(b *testing.B) {
	ix := testIndex(b)
	fixtures.GCCost(b)
	runtime.KeepAlive(ix)
}
