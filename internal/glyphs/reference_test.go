package glyphs

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// systemFont returns the path of a font installed by a Debian package,
// skipping the test when it is absent (or failing under TESSERA_REQUIRE_TOOLS).
func systemFont(t testing.TB, path, pkg string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if fixtures.RequireTools() {
			t.Fatalf("%s is required (TESSERA_REQUIRE_TOOLS=1): apt-get install -y %s", path, pkg)
		}
		t.Skipf("%s is absent: skipping (apt-get install -y %s)", path, pkg)
	}
	return path
}

func loadFace(t testing.TB, path string) *Font {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	faces, err := ParseFont(data)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return faces[0]
}

func loadReference(t testing.TB, path string) Fontstack {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stacks, err := DecodeRange(data)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if len(stacks) != 1 {
		t.Fatalf("%s: %d stacks, want 1", path, len(stacks))
	}
	return stacks[0]
}

// comparison summarises how a rendered range matches a reference range.
type comparison struct {
	ours, ref, common int
	onlyOurs, onlyRef []uint32
	metricDiffs       int     // common glyphs whose width, height, left, top or advance differ
	metricMismatch    []string
	bitmapGlyphs      int     // common glyphs with same-size bitmaps
	sumAbs, pixels    float64 // absolute byte differences over those bitmaps
	maxGlyphMAD       float64
	maxGlyphID        uint32
}

func (c comparison) mad() float64 { return c.sumAbs / max(c.pixels, 1) }

func (c comparison) String() string {
	return fmt.Sprintf("glyphs ours=%d ref=%d common=%d onlyOurs=%d onlyRef=%d metricDiffs=%d bitmaps=%d MAD=%.3f worstGlyph=%d (MAD %.2f)",
		c.ours, c.ref, c.common, len(c.onlyOurs), len(c.onlyRef), c.metricDiffs, c.bitmapGlyphs, c.mad(), c.maxGlyphID, c.maxGlyphMAD)
}

func compareRange(ours, ref []Glyph) comparison {
	c := comparison{ours: len(ours), ref: len(ref)}
	byID := map[uint32]Glyph{}
	for _, g := range ref {
		byID[g.ID] = g
	}
	seen := map[uint32]bool{}
	for _, g := range ours {
		seen[g.ID] = true
		r, ok := byID[g.ID]
		if !ok {
			c.onlyOurs = append(c.onlyOurs, g.ID)
			continue
		}
		c.common++
		if g.Width != r.Width || g.Height != r.Height || g.Left != r.Left || g.Top != r.Top || g.Advance != r.Advance {
			c.metricDiffs++
			c.metricMismatch = append(c.metricMismatch, fmt.Sprintf("%d: ours w%d h%d l%d t%d a%d ref w%d h%d l%d t%d a%d",
				g.ID, g.Width, g.Height, g.Left, g.Top, g.Advance, r.Width, r.Height, r.Left, r.Top, r.Advance))
		}
		if len(g.Bitmap) > 0 && g.Width == r.Width && g.Height == r.Height && len(g.Bitmap) == len(r.Bitmap) {
			c.bitmapGlyphs++
			s := 0.0
			for i := range g.Bitmap {
				s += math.Abs(float64(g.Bitmap[i]) - float64(r.Bitmap[i]))
			}
			c.sumAbs += s
			c.pixels += float64(len(g.Bitmap))
			if m := s / float64(len(g.Bitmap)); m > c.maxGlyphMAD {
				c.maxGlyphMAD, c.maxGlyphID = m, g.ID
			}
		}
	}
	for _, g := range ref {
		if !seen[g.ID] {
			c.onlyRef = append(c.onlyRef, g.ID)
		}
	}
	return c
}

func TestExplore(t *testing.T) {
	shared := fixtures.SharedDir()
	cases := []struct{ font, ref string }{
		{"/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", filepath.Join(shared, "fixtures/tileserver-rs/data/fonts/Noto Sans Regular/0-255.pbf")},
		{"/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", filepath.Join(shared, "fixtures/tileserver-rs/data/fonts/Noto Sans Regular/256-511.pbf")},
		{"/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", filepath.Join(shared, "fixtures/martin/tests/fixtures/render_cassette/tiles.openfreemap.org/fonts/Noto%20Sans%20Bold/0-255.pbf")},
		{"/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", filepath.Join(shared, "fixtures/martin/tests/fixtures/render_cassette/tiles.openfreemap.org/fonts/Noto%20Sans%20Bold/7680-7935.pbf")},
		{"/usr/share/fonts/truetype/open-sans/OpenSans-Semibold.ttf", filepath.Join(shared, "fixtures/martin/tests/fixtures/render_cassette/demotiles.maplibre.org/font/Open%20Sans%20Semibold/0-255.pbf")},
		{"/usr/share/fonts/truetype/open-sans/OpenSans-Semibold.ttf", filepath.Join(shared, "render-tests/glyphs/Open Sans Semibold,Arial Unicode MS Bold/0-255.pbf")},
	}
	for _, tc := range cases {
		f := loadFace(t, tc.font)
		ref := loadReference(t, tc.ref)
		var start int
		fmt.Sscanf(ref.Range, "%d", &start)
		ours, err := f.RenderRange(context.Background(), start)
		if err != nil {
			t.Fatal(err)
		}
		c := compareRange(ours, ref.Glyphs)
		t.Logf("%s (%s) vs %s [%s]: %v", filepath.Base(tc.font), f.Name, ref.Name, ref.Range, c)
		for i, m := range c.metricMismatch {
			if i < 8 {
				t.Log("  ", m)
			}
		}
		t.Log("  onlyOurs", c.onlyOurs, "onlyRef", c.onlyRef)
	}
}
