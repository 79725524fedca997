package sprite

import (
	"context"
	"testing"
	"testing/fstest"
)

func TestIconMarkedSDF(t *testing.T) {
	const circle = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4" fill="#000"/></svg>`
	fsys := fstest.MapFS{
		"dot.svg":        {Data: []byte(circle)},
		"marker.sdf.svg": {Data: []byte(circle)},
	}
	for _, ratio := range []int{1, 2} {
		sheet, err := BuildFS(context.Background(), fsys, Options{PixelRatio: ratio})
		if err != nil {
			t.Fatal(err)
		}
		dot, okDot := sheet.Entries["dot"]
		marker, okMarker := sheet.Entries["marker"]
		if !okDot || !okMarker {
			t.Fatalf("entries = %v", sheet.Entries)
		}
		if dot.SDF || !marker.SDF {
			t.Errorf("ratio %d: dot sdf=%v, marker sdf=%v", ratio, dot.SDF, marker.SDF)
		}
		// The SDF icon carries its buffer on each side.
		if want := dot.Width + 2*sdfBuffer*ratio; marker.Width != want {
			t.Errorf("ratio %d: marker width %d, want %d", ratio, marker.Width, want)
		}
	}
}
