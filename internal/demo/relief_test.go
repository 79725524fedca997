package demo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/pyramid"
)

// TestReliefRows: the relief is north up whichever way the grid is
// stored, one pixel per node coloured by the ramp, and cuts into a
// pyramid of the grid's size.
func TestReliefRows(t *testing.T) {
	for _, dy := range []float64{1, -1} {
		// 600 x 3 nodes: the northern row high land, the southern deep sea.
		g := &elevation.Grid{W: 600, H: 3, DX: 0.6, DY: dy, Data: make([]float32, 1800)}
		north, south := 0, 2
		if dy > 0 {
			north, south = 2, 0
		}
		for col := 0; col < 600; col++ {
			g.Data[north*600+col] = 4000
			g.Data[south*600+col] = -6000
		}
		rows := &reliefRows{g: g}
		first, last := make([]byte, 4*600), make([]byte, 4*600)
		rows.Next(first)
		rows.Next(last)
		rows.Next(last)
		if c := reliefColour(4000); [4]byte(first[:4]) != c {
			t.Errorf("dy %v: first row %v, want the colour of 4000 m %v", dy, first[:4], c)
		}
		if c := reliefColour(-6000); [4]byte(last[4*599:]) != c {
			t.Errorf("dy %v: last row %v, want the colour of -6000 m %v", dy, last[4*599:], c)
		}
		out := filepath.Join(t.TempDir(), "relief.mbtiles")
		info, err := pyramid.WriteMBTiles(context.Background(), &reliefRows{g: g}, out, ReliefImage, pyramid.Meta{}, pyramid.Options{})
		if err != nil || info.Width != 600 || info.Height != 3 || info.MaxZoom != 2 {
			t.Errorf("pyramid %+v %v", info, err)
		}
	}
	// The ramp: sea below 0 is blue, land above green to white, clamped.
	if c := reliefColour(-20000); c != reliefColour(-8000) {
		t.Errorf("below the ramp %v", c)
	}
	if c := reliefColour(9000); c != [4]byte{240, 240, 240, 255} {
		t.Errorf("above the ramp %v", c)
	}
	if c := reliefColour(-100); c[2] <= c[0] {
		t.Errorf("sea %v is not blue", c)
	}
}
