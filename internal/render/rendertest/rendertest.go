// Package rendertest holds the helpers that the tests of the renderer's
// rooms (render, sources, layers, symbols) share.
package rendertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/style"
)

// Parse parses a style document, failing the test when it cannot.
func Parse(t testing.TB, doc string) *style.Style {
	t.Helper()
	st, err := style.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Files serves resources from memory, by URL.
type Files map[string][]byte

// Fetch returns the bytes under url, an error when there are none.
func (m Files) Fetch(_ context.Context, url string) ([]byte, error) {
	if b, ok := m[url]; ok {
		return b, nil
	}
	return nil, errors.New("not found")
}

// Near reports whether the four channels of a and b are within tol of
// each other.
func Near(a, b [4]float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// Local serves the render suite's local:// URLs from the folder Root and
// file:// URLs from the file system; nothing else (no network in tests).
type Local struct{ Root string }

// Fetch returns the bytes behind url.
func (l Local) Fetch(_ context.Context, url string) ([]byte, error) {
	switch {
	case strings.HasPrefix(url, "local://"):
		return os.ReadFile(filepath.Join(l.Root, filepath.FromSlash(strings.TrimPrefix(url, "local://"))))
	case strings.HasPrefix(url, "file://"):
		return os.ReadFile(strings.TrimPrefix(url, "file://"))
	}
	return nil, fmt.Errorf("no network in tests: %s", url)
}

// StreetStyle returns the street style of the shared benchmark
// (../shared/bench/street-style.json) and the resources its local:// URLs
// name, skipping without ../shared.
func StreetStyle(tb testing.TB) (*style.Style, Local) {
	tb.Helper()
	dir := fixtures.SharedDir()
	if dir == "" {
		tb.Skip("../shared is absent: the street style is in ../shared/bench")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "bench", "street-style.json"))
	if err != nil {
		tb.Skip("no ../shared/bench/street-style.json")
	}
	st, err := style.Parse(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return st, Local{Root: filepath.Join(dir, "render-tests")}
}

// EncodePNG encodes img as PNG, failing the test when it cannot.
func EncodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
