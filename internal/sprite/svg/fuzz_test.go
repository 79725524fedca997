package svg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
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
		`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><image width="4" height="4" preserveAspectRatio="xMinYMax slice" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><mask id="m" style="mask-type:alpha"><rect width="5" height="5" mask="url(#m)"/></mask><circle r="4" cx="5" cy="5" mask="url(#m)"/></svg>`,
	}
	// The fixture icons, when the shared folder is there.
	if shared := fixtures.SharedDir(); shared != "" {
		matches, _ := filepath.Glob(filepath.Join(shared, "fixtures", "martin", "tests", "fixtures", "sprites", "*", "*.svg"))
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

// FuzzPathData checks the path data parser and flattener on arbitrary "d" strings.
func FuzzPathData(f *testing.F) {
	for _, s := range []string{
		"M0 0L10 10z", "m1,2c3,4 5,6 7,8s1,2 3,4q1 2 3 4t5 6a1 2 3 1 0 4 5", "M.5.5-1-1e2", "M0 0A0 0 0 0 0 10 10",
		"M0 0 H 10 V 10 h -10 v -10 Z M 2 2 L 3 3", "M1e308 1e308 C-1e308 1 1 1 0 0", "a", "M0 0 a1 1 0 11 2 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, d string) {
		p, err := parsePathData(d, 10000)
		if p == nil {
			t.Fatalf("nil path (err %v)", err)
		}
		lines, err := p.flatten(0.1, 100000)
		if err != nil {
			return
		}
		for _, l := range lines {
			if len(l.pts) != len(l.corner) {
				t.Fatalf("points %d, corner flags %d", len(l.pts), len(l.corner))
			}
		}
		// Stroking the result must not panic either.
		strokePolylines(lines, strokeParams{width: 2, join: joinRound, cap: capRound, miterLimit: 4, dash: []float64{1, 0.5}}, 0.1, func([]point) {})
	})
}
