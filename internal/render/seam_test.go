package render

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/style"
)

// TestSeamlessLabels renders two neighbouring z14 tiles apart and the two
// together: with a label margin and the tile grid, each tile holds exactly
// its half of the wide view, labels across the seam included.
func TestSeamlessLabels(t *testing.T) {
	root := fixtures.Path(t, "render-tests")
	raw, err := os.ReadFile(fixtures.Path(t, "bench/street-style.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Keep the POI layer (icons and labels) on white.
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	layers := []any{map[string]any{"id": "bg", "type": "background", "paint": map[string]any{"background-color": "white"}}}
	for _, l := range doc["layers"].([]any) {
		if l.(map[string]any)["id"] == "poi" {
			layers = append(layers, l)
		}
	}
	if len(layers) != 2 {
		t.Skip("the street style has no poi layer")
	}
	doc["layers"] = layers
	b, _ := json.Marshal(doc)
	st, err := style.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	r := newRenderer(t)
	res := localResources{Root: root}
	const z, x, y = 14, 8802, 5374
	view := func(cx, cy float64, w int, seamless bool) View {
		n := float64(int(1) << z)
		lon, lat := geo.WorldToLonLat(cx/n, cy/n)
		v := View{Center: [2]float64{lon, lat}, Zoom: z, Width: w, Height: 512, PixelRatio: 1}
		if seamless {
			v.LabelMargin, v.LabelGrid = 256, 512
		}
		return v
	}
	for _, tc := range []struct {
		name     string
		seamless bool
		agree    bool
	}{
		{"seamless", true, true},
		{"as GL", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wide, err := r.Render(context.Background(), st, view(x+1, y+0.5, 1024, tc.seamless), res)
			if err != nil {
				t.Fatal(err)
			}
			differ := 0
			for i, tx := range []float64{x + 0.5, x + 1.5} {
				tile, err := r.Render(context.Background(), st, view(tx, y+0.5, 512, tc.seamless), res)
				if err != nil {
					t.Fatal(err)
				}
				for py := 0; py < 512; py++ {
					for px := 0; px < 512; px++ {
						a := tile.PixOffset(px, py)
						b := wide.PixOffset(px+512*i, py)
						for c := 0; c < 4; c++ {
							d := int(tile.Pix[a+c]) - int(wide.Pix[b+c])
							if d > 2 || d < -2 {
								differ++
								break
							}
						}
					}
				}
			}
			if tc.agree && differ > 0 {
				t.Errorf("%d pixels of the tiles differ from the wide view", differ)
			}
			if !tc.agree && differ == 0 {
				t.Errorf("the tiles agree with the wide view without the label grid: the test shows nothing")
			}
			t.Logf("%d pixels differ", differ)
		})
	}
}
