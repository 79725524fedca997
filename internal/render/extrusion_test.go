package render

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/layers"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

// TestExtrusionBox draws a box in a pitched view: the pixels of its roof,
// of its front wall and around it, and how the light shades them.
func TestExtrusionBox(t *testing.T) {
	r := newRenderer(t)
	// A box 0.0004 degrees wide at the equator (about 37 px at zoom 16)
	// and 60 m high (about 50 px).
	const doc = `{"version": 8, "center": [0, 0], "zoom": 16, "pitch": 45, %s
		"sources": {"g": {"type": "geojson", "data": {"type": "Feature", "properties": {},
			"geometry": {"type": "Polygon", "coordinates": [[[-0.0002,-0.0002],[0.0002,-0.0002],[0.0002,0.0002],[-0.0002,0.0002],[-0.0002,-0.0002]]]}}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "black"}},
			{"id": "x", "type": "fill-extrusion", "source": "g", "paint": {
			"fill-extrusion-color": "#808080", "fill-extrusion-height": 60, "fill-extrusion-vertical-gradient": false, "fill-extrusion-opacity": %s}}]}`
	// Positions: the box's corners in plane pixels, then seen.
	v := View{Zoom: 16, Width: 128, Height: 128, PixelRatio: 1, Pitch: 45}
	lr := layers.NewPainter(scene.Layer{Frame: scene.NewFrame(v)}, nil)
	cam := lr.Camera()
	half := 0.0002 / 360 * 512 * math.Exp2(16)
	heightPx := 60 / (layers.EarthCircumference / (512 * math.Exp2(16)))
	roofCentre, _ := cam.Project(64, 64, heightPx)
	frontTop, _ := cam.Project(64, 64+half, heightPx)
	frontFoot, _ := cam.Project(64, 64+half, 0)
	backTop, _ := cam.Project(64, 64-half, heightPx)
	wallMid := raster.Point{X: 64, Y: (frontTop.Y + frontFoot.Y) / 2}
	tests := []struct {
		name, light, opacity string
		// roof and front wall brighter than the other
		roofBrighter bool
	}{
		{"light from above", `"light": {"anchor": "map", "position": [1, 0, 0], "intensity": 0.8},`, "1", true},
		{"light from the south, low", `"light": {"anchor": "map", "position": [1, 180, 90], "intensity": 0.8},`, "1", false},
		{"default light", ``, "1", true},
		{"half opacity", ``, "0.5", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, fmt.Sprintf(doc, tc.light, tc.opacity))
			img, err := r.Render(context.Background(), st, ViewOf(st, 128, 128, 1), mapResources{})
			if err != nil {
				t.Fatal(err)
			}
			at := func(p raster.Point) [4]uint8 {
				o := img.PixOffset(int(p.X), int(p.Y))
				return [4]uint8(img.Pix[o : o+4])
			}
			roof, wall := at(roofCentre), at(wallMid)
			above := at(raster.Point{X: 64, Y: backTop.Y - 3})
			below := at(raster.Point{X: 64, Y: frontFoot.Y + 3})
			if above != [4]uint8{0, 0, 0, 255} || below != [4]uint8{0, 0, 0, 255} {
				t.Errorf("around the box: %v above, %v below, want black", above, below)
			}
			if roof[0] == 0 || wall[0] == 0 {
				t.Fatalf("roof %v, wall %v: not drawn", roof, wall)
			}
			if (roof[0] > wall[0]) != tc.roofBrighter || roof[0] == wall[0] {
				t.Errorf("roof %v, front wall %v: roof brighter %v, want %v", roof, wall, roof[0] > wall[0], tc.roofBrighter)
			}
			if roof[0] != roof[1] || roof[1] != roof[2] {
				t.Errorf("a grey roof under white light is %v", roof)
			}
		})
	}
}
