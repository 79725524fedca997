package svg

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSVG parses arbitrary input and renders whatever parses into a small image: neither
// may panic, hang or allocate without bound.
func FuzzParseSVG(f *testing.F) {
	seeds := []string{
		`<svg xmlns="http://www.w3.org/2000/svg" width="15" height="15"><path d="M7.5,2c-0.6761-0.01-0.6761,1.0096,0,1H9v1.2656l-2.8027,2.334z"/></svg>`,
		`<svg viewBox="0 0 20 20" xmlns="http://www.w3.org/2000/svg"><circle cx="10" cy="10" r="10" fill="#f00"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0A10 5 30 1 1 20 20z" stroke="red" stroke-dasharray="1 2" stroke-linejoin="round"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><style>.a{fill:url(#g)}</style><linearGradient id="g" href="#g"><stop/></linearGradient><rect class="a" width="5" height="5"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><use id="a" href="#b"/><use id="b" href="#a"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><clipPath id="c" clipPathUnits="objectBoundingBox"><circle r=".5" cx=".5" cy=".5"/></clipPath><g clip-path="url(#c)" opacity=".5"><rect width="9" height="9"/></g></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" width="1e308" height="-1"><rect width="1e308" height="1e308" transform="scale(1e-308)"/></svg>`,
	}
	// The fixture icons, when the shared folder is there.
	if matches, _ := filepath.Glob("../../../../shared/fixtures/martin/tests/fixtures/sprites/*/*.svg"); len(matches) > 0 {
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	lim := Limits{MaxBytes: 1 << 16, MaxElements: 2000, MaxPoints: 50000, MaxEdges: 100000}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseWithLimits(data, lim)
		if err != nil {
			return
		}
		w, h := d.Size()
		if w < 0 || h < 0 {
			t.Fatalf("negative size %gx%g", w, h)
		}
		img, err := d.RenderSize(context.Background(), 24, 24)
		if err != nil {
			return
		}
		if img.Bounds().Dx() != 24 || img.Bounds().Dy() != 24 {
			t.Fatalf("image %v", img.Bounds())
		}
	})
}
