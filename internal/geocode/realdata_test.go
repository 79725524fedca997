package geocode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	return fixtures.RepoRoot()
}

var (
	realOnce  sync.Once
	realIndex *Index
	realErr   error
	realBuild time.Duration
	realLoad  time.Duration
)

// openRealIndex builds (once, cached in .cache/geocode) and opens the index of
// the real open data. It skips when the sources cannot be fetched, unless
// TESSERA_REQUIRE_TOOLS=1.
func openRealIndex(t testing.TB) *Index {
	t.Helper()
	root := repoRoot(t)
	realOnce.Do(func() {
		out := filepath.Join(root, ".cache", "geocode", "world.tgi")
		if ix, err := openTimed(out); err == nil {
			if current(ix) {
				realIndex = ix
				return
			}
			ix.Close() // built before a source was added: build it again
		}
		start := time.Now()
		err := Build(context.Background(), BuildOptions{CacheDir: filepath.Join(root, ".cache", "opendata"), Out: out})
		realBuild = time.Since(start)
		if err != nil {
			realErr = err
			return
		}
		realIndex, realErr = openTimed(out)
	})
	if realErr != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") != "1" && (errors.Is(realErr, ErrToolMissing) || isFetchError(realErr)) {
			t.Skipf("real geocoding data unavailable: %v", realErr)
		}
		t.Fatalf("build real index: %v", realErr)
	}
	return realIndex
}

// current reports whether a cached index was built from every source the
// build reads today (each credits itself in the attribution).
func current(ix *Index) bool {
	for _, attr := range []string{sources.AttrGeoNames, sources.AttrFrance, sources.AttrUSZips, sources.AttrSimpleMaps} {
		if !strings.Contains(ix.meta.Attribution, attr) {
			return false
		}
	}
	return true
}

func openTimed(path string) (*Index, error) {
	start := time.Now()
	ix, err := Open(path)
	realLoad = time.Since(start)
	return ix, err
}

func isFetchError(err error) bool {
	var ee interface{ ExitCode() int }
	return errors.As(err, &ee)
}
