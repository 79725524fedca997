package demo

import (
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/fixtures"
)

// servicesBuilder is a builder over a fresh data folder whose packages come
// from the repository's .cache/opendata (fetched once, as the demo does).
func servicesBuilder(t *testing.T) *builder {
	t.Helper()
	return &builder{opts: Options{DataDir: t.TempDir(), CacheDir: fixtures.OpenDataCache()}, log: discardLogger(), fetched: map[string]string{}}
}

func TestInstallElevation(t *testing.T) {
	fixtures.Debian(t, ElevationPackage) // skips without apt
	b := servicesBuilder(t)
	if err := b.installElevation(t.Context()); err != nil {
		t.Fatal(err)
	}
	m, err := elevation.Open(t.Context(), filepath.Join(b.opts.DataDir, ElevationDir), discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grids) != 1 || m.Grids[0].W != 4320 {
		t.Fatalf("installed grids: %+v", m.Grids)
	}
	if v, _, ok := m.At(8.54, 47.37); !ok || v < 400 || v > 700 {
		t.Errorf("Zurich: %g m %v", v, ok)
	}
	// A second build reuses what is there.
	if err := b.installElevation(t.Context()); err != nil {
		t.Fatalf("again: %v", err)
	}
}
