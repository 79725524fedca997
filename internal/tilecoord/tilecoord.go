// Package tilecoord parses and checks tile addresses of the XYZ tile grid
// (zoom, column, row counted from the north-west corner), as they appear in
// URL paths: "z/x/y" with an optional file extension on the row.
package tilecoord

import (
	"errors"
	"fmt"
	"strings"
)

// MaxZoom is the highest zoom level an address may name.
const MaxZoom = 30

// ErrMalformed reports an address that is not three decimal numbers.
var ErrMalformed = errors.New("malformed tile address")

// ErrOutOfGrid reports an address outside the tile grid of its zoom.
var ErrOutOfGrid = errors.New("tile address outside the tile grid")

// Coord is one tile of the XYZ grid.
type Coord struct {
	Z, X, Y int
}

func (c Coord) String() string { return fmt.Sprintf("%d/%d/%d", c.Z, c.X, c.Y) }

// Valid reports whether c lies inside the grid of its zoom.
func (c Coord) Valid() bool {
	if c.Z < 0 || c.Z > MaxZoom {
		return false
	}
	n := 1 << uint(c.Z)
	return c.X >= 0 && c.Y >= 0 && c.X < n && c.Y < n
}

// Parse reads the three path segments z, x and y (y may carry an extension,
// as in "5.pbf") and returns the tile and the extension without its dot.
func Parse(z, x, y string) (Coord, string, error) {
	ext := ""
	if i := strings.IndexByte(y, '.'); i >= 0 {
		ext = y[i+1:]
		y = y[:i]
		if ext == "" || strings.IndexByte(ext, '.') >= 0 || len(ext) > 8 {
			return Coord{}, "", fmt.Errorf("%w: bad extension in %q", ErrMalformed, y+"."+ext)
		}
	}
	zi, ok1 := atoi(z)
	xi, ok2 := atoi(x)
	yi, ok3 := atoi(y)
	if !ok1 || !ok2 || !ok3 {
		return Coord{}, "", fmt.Errorf("%w: %q/%q/%q is not three whole numbers", ErrMalformed, z, x, y)
	}
	c := Coord{Z: zi, X: xi, Y: yi}
	if !c.Valid() {
		return Coord{}, "", fmt.Errorf("%w: %s", ErrOutOfGrid, c)
	}
	return c, ext, nil
}

// ParsePath reads "z/x/y[.ext]".
func ParsePath(p string) (Coord, string, error) {
	parts := strings.Split(p, "/")
	if len(parts) != 3 {
		return Coord{}, "", fmt.Errorf("%w: %q is not z/x/y", ErrMalformed, p)
	}
	return Parse(parts[0], parts[1], parts[2])
}

// atoi reads a non-negative decimal number of at most 10 digits. Signs,
// spaces and other characters are refused; large values stay in range
// because of the digit limit and are rejected by the grid check.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
