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
	metricDiffs       int // common glyphs whose width, height, left, top or advance differ
	metricMismatch    []string
	bitmapGlyphs      int     // common glyphs with same-size bitmaps
	sumAbs, pixels    float64 // absolute byte differences over those bitmaps
	equal             float64 // bytes equal in those bitmaps
	maxGlyphMAD       float64
	maxGlyphID        uint32
}

func (c comparison) mad() float64 { return c.sumAbs / max(c.pixels, 1) }

func (c comparison) String() string {
	return fmt.Sprintf("glyphs ours=%d ref=%d common=%d onlyOurs=%d onlyRef=%d metricDiffs=%d bitmaps=%d MAD=%.3f equalBytes=%.1f%% worstGlyph=%d (MAD %.2f)",
		c.ours, c.ref, c.common, len(c.onlyOurs), len(c.onlyRef), c.metricDiffs, c.bitmapGlyphs, c.mad(), 100*c.equal/max(c.pixels, 1), c.maxGlyphID, c.maxGlyphMAD)
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
				if g.Bitmap[i] == r.Bitmap[i] {
					c.equal++
				}
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

const (
	notoRegular    = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
	notoBold       = "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf"
	openSemibold   = "/usr/share/fonts/truetype/open-sans/OpenSans-Semibold.ttf"
	demotilesOpen  = "fixtures/martin/tests/fixtures/render_cassette/demotiles.maplibre.org/font/Open%20Sans%20Semibold/0-255.pbf"
	openfreemapDir = "fixtures/martin/tests/fixtures/render_cassette/tiles.openfreemap.org/fonts/Noto%20Sans%20Bold/"
	tileserverRS   = "fixtures/tileserver-rs/data/fonts/Noto Sans Regular/"
)

// renderAgainst renders the reference's range with the font and compares.
func renderAgainst(t *testing.T, fontPath, refPath string) (comparison, []Glyph, Fontstack) {
	t.Helper()
	f := loadFace(t, fontPath)
	ref := loadReference(t, refPath)
	var start, end int
	if _, err := fmt.Sscanf(ref.Range, "%d-%d", &start, &end); err != nil || end != start+255 {
		t.Fatalf("reference range %q", ref.Range)
	}
	ours, err := f.RenderRange(context.Background(), start)
	if err != nil {
		t.Fatal(err)
	}
	c := compareRange(ours, ref.Glyphs)
	t.Logf("%s vs %s [%s]: %v", f.Name, filepath.Base(filepath.Dir(refPath)), ref.Range, c)
	return c, ours, ref
}

// TestReferenceOpenSansSemibold compares with the range MapLibre's demo
// tiles serve (made with node-fontnik): same code points, same metrics but
// for a few glyphs whose rounded bounds fall the other way, and bitmaps
// within a fraction of a byte on average.
func TestReferenceOpenSansSemibold(t *testing.T) {
	font := systemFont(t, openSemibold, "fonts-open-sans")
	c, _, ref := renderAgainst(t, font, fixtures.Path(t, demotilesOpen))
	if ref.Name != "Open Sans Semibold" {
		t.Errorf("reference name %q", ref.Name)
	}
	if c.ours != 191 || c.ref != 191 || len(c.onlyOurs)+len(c.onlyRef) != 0 {
		t.Errorf("code points differ: %v", c)
	}
	if c.metricDiffs > 3 {
		t.Errorf("%d glyphs with other metrics: %v", c.metricDiffs, c.metricMismatch)
	}
	if c.mad() > 1.0 || c.maxGlyphMAD > 10 {
		t.Errorf("bitmaps differ too much: MAD %.3f, worst glyph %d MAD %.2f", c.mad(), c.maxGlyphID, c.maxGlyphMAD)
	}
}

// TestReferenceNotoSansRegular compares with tileserver-rs's ranges. Their
// generator truncates the ascender (25 px for Noto Sans at 24 px) where
// node-fontnik and the demo tiles use FreeType's grid-fitted one (26 px), so
// every top is one less here; the rest must match.
func TestReferenceNotoSansRegular(t *testing.T) {
	font := systemFont(t, notoRegular, "fonts-noto-core")
	for _, file := range []string{"0-255.pbf", "256-511.pbf", "4352-4607.pbf"} {
		t.Run(file, func(t *testing.T) {
			c, ours, ref := renderAgainst(t, font, fixtures.Path(t, tileserverRS+file))
			// The reference's font version also maps U+001D and U+007F.
			for _, id := range c.onlyRef {
				if id != 29 && id != 127 {
					t.Errorf("reference has U+%04X and we do not", id)
				}
			}
			if len(c.onlyOurs) != 0 {
				t.Errorf("we have code points the reference lacks: %v", c.onlyOurs)
			}
			refByID := map[uint32]Glyph{}
			for _, g := range ref.Glyphs {
				refByID[g.ID] = g
			}
			sizeDiffs := 0
			for _, g := range ours {
				r := refByID[g.ID]
				if g.Top != r.Top-1 {
					t.Errorf("U+%04X: top %d, reference %d (want reference-1)", g.ID, g.Top, r.Top)
				}
				if g.Advance != r.Advance {
					t.Errorf("U+%04X: advance %d, reference %d", g.ID, g.Advance, r.Advance)
				}
				if g.Width != r.Width || g.Height != r.Height || g.Left != r.Left {
					sizeDiffs++
				}
			}
			if sizeDiffs*50 > max(c.common, 1) {
				t.Errorf("%d of %d glyphs have other bounds", sizeDiffs, c.common)
			}
			if c.mad() > 0.6 {
				t.Errorf("bitmap MAD %.3f", c.mad())
			}
		})
	}
}

// TestReferenceNotoSansBold compares with OpenFreeMap's ranges, made from an
// older Noto Sans Bold merged with other Noto fonts: the shared glyphs must
// mostly agree, although the font's design changed in places.
func TestReferenceNotoSansBold(t *testing.T) {
	font := systemFont(t, notoBold, "fonts-noto-core")
	for _, file := range []string{"0-255.pbf", "7680-7935.pbf"} {
		t.Run(file, func(t *testing.T) {
			c, _, _ := renderAgainst(t, font, fixtures.Path(t, openfreemapDir+file))
			if c.common < 190 {
				t.Errorf("only %d common glyphs", c.common)
			}
			if c.metricDiffs*5 > c.common {
				t.Errorf("%d of %d glyphs have other metrics", c.metricDiffs, c.common)
			}
			if c.mad() > 2.5 {
				t.Errorf("bitmap MAD %.3f", c.mad())
			}
		})
	}
}

// TestRenderTestGlyphs decodes the glyph ranges of the rendering suite: each
// holds one stack for its file's range, with code points inside it and
// bitmaps of (width+6)*(height+6) bytes (DecodeRange checks the sizes).
func TestRenderTestGlyphs(t *testing.T) {
	root := fixtures.Path(t, "render-tests/glyphs")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.pbf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no glyph ranges under %s: %v", root, err)
	}
	glyphs := 0
	for _, p := range files {
		fs := loadReference(t, p)
		var start, end int
		if _, err := fmt.Sscanf(filepath.Base(p), "%d-%d.pbf", &start, &end); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fs.Range != rangeName(start) || end != start+255 {
			t.Errorf("%s: range %q", p, fs.Range)
		}
		for _, g := range fs.Glyphs {
			if g.ID < uint32(start) || g.ID > uint32(end) {
				t.Errorf("%s: glyph %d outside the range", p, g.ID)
			}
		}
		glyphs += len(fs.Glyphs)
	}
	t.Logf("%d ranges, %d glyphs", len(files), glyphs)

	// The suite's Open Sans Semibold range is an older generation (bitmaps
	// one pixel larger around), but its code points and advances are ours.
	font := systemFont(t, openSemibold, "fonts-open-sans")
	c, ours, ref := renderAgainst(t, font, filepath.Join(root, "Open Sans Semibold,Arial Unicode MS Bold", "0-255.pbf"))
	if len(c.onlyOurs)+len(c.onlyRef) != 0 {
		t.Errorf("code points differ: %v", c)
	}
	for i := range ours {
		if i < len(ref.Glyphs) && ours[i].Advance != ref.Glyphs[i].Advance {
			t.Errorf("U+%04X: advance %d, reference %d", ours[i].ID, ours[i].Advance, ref.Glyphs[i].Advance)
		}
	}
}
