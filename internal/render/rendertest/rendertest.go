// Package rendertest holds the helpers that the tests of the renderer's
// rooms (render, sources, layers, symbols) share.
package rendertest

import (
	"context"
	"errors"
	"math"
	"testing"

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
