package glyphs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	maxPixel          int    // largest byte difference in those bitmaps
	maxPixelID        uint32 // the glyph that has it
}

func (c comparison) mad() float64 { return c.sumAbs / max(c.pixels, 1) }

// bounds are what a reference comparison must meet: the code points each
// side alone has (exactly), and the bitmap differences at the level measured
// when they were set plus a small margin. The renderer is deterministic, so
// on one machine the figures repeat exactly; the margin (0.05 on the range's
// mean, 0.5 on a glyph's mean, 5 on one byte, 2 metric differences) absorbs
// floating point that rounds otherwise on other CPUs (fused multiply-add),
// which moves single bytes by one or two. A missing contour, a shifted or
// scaled glyph moves a glyph's mean by tens and single bytes by 100 or more.
type bounds struct {
	onlyOurs, onlyRef []uint32 // code points only one side has, exactly
	minBitmaps        int      // common glyphs whose bitmaps are compared, at least
	maxMetricDiffs    int      // common glyphs with other metrics, at most
	mad               float64  // mean absolute byte difference over the range, at most
	glyphMAD          float64  // the same for the worst glyph, at most
	pixel             int      // largest byte difference, at most
}

// check fails the test when c does not meet b.
func (c comparison) check(t *testing.T, b bounds) {
	t.Helper()
	if c.ref == 0 {
		t.Fatal("the reference range has no glyphs: nothing is compared")
	}
	if !slices.Equal(c.onlyOurs, b.onlyOurs) {
		t.Errorf("code points only we have: %v, want %v", c.onlyOurs, b.onlyOurs)
	}
	if !slices.Equal(c.onlyRef, b.onlyRef) {
		t.Errorf("code points only the reference has: %v, want %v", c.onlyRef, b.onlyRef)
	}
	if c.bitmapGlyphs < b.minBitmaps {
		t.Errorf("%d bitmaps compared, want at least %d", c.bitmapGlyphs, b.minBitmaps)
	}
	if c.metricDiffs > b.maxMetricDiffs {
		t.Errorf("%d glyphs with other metrics, want at most %d: %v", c.metricDiffs, b.maxMetricDiffs, c.metricMismatch)
	}
	if c.mad() > b.mad {
		t.Errorf("bitmap MAD %.3f over the range, want at most %.3f", c.mad(), b.mad)
	}
	if c.maxGlyphMAD > b.glyphMAD {
		t.Errorf("glyph U+%04X: bitmap MAD %.2f, want at most %.2f", c.maxGlyphID, c.maxGlyphMAD, b.glyphMAD)
	}
	if c.maxPixel > b.pixel {
		t.Errorf("glyph U+%04X: a byte differs by %d, want at most %d", c.maxPixelID, c.maxPixel, b.pixel)
	}
}

func (c comparison) String() string {
	return fmt.Sprintf("glyphs ours=%d ref=%d common=%d onlyOurs=%v onlyRef=%v metricDiffs=%d bitmaps=%d MAD=%.3f equalBytes=%.1f%% worstGlyph=%d (MAD %.2f) maxPixel=%d (glyph %d)",
		c.ours, c.ref, c.common, c.onlyOurs, c.onlyRef, c.metricDiffs, c.bitmapGlyphs, c.mad(), 100*c.equal/max(c.pixels, 1), c.maxGlyphID, c.maxGlyphMAD, c.maxPixel, c.maxPixelID)
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
				d := int(g.Bitmap[i]) - int(r.Bitmap[i])
				if d < 0 {
					d = -d
				}
				s += float64(d)
				if d == 0 {
					c.equal++
				}
				if d > c.maxPixel {
					c.maxPixel, c.maxPixelID = d, g.ID
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
	if c.ours != 191 || c.ref != 191 {
		t.Errorf("code points: %v", c)
	}
	// Measured: 3 metric differences, 186 bitmaps, MAD 0.793, worst glyph
	// U+00BD MAD 8.25, largest byte difference 37 (U+00C5).
	c.check(t, bounds{minBitmaps: 186, maxMetricDiffs: 3 + 2, mad: 0.793 + 0.05, glyphMAD: 8.25 + 0.5, pixel: 37 + 5})
}

// TestReferenceNotoSansRegular compares with tileserver-rs's ranges. Their
// generator truncates the ascender (25 px for Noto Sans at 24 px) where
// node-fontnik and the demo tiles use FreeType's grid-fitted one (26 px), so
// every top is one less here; the rest must match.
func TestReferenceNotoSansRegular(t *testing.T) {
	font := systemFont(t, notoRegular, "fonts-noto-core")
	tests := []struct {
		file string
		b    bounds
	}{
		// The reference's font version also maps U+001D and U+007F.
		// Measured: 187 bitmaps, MAD 0.348, worst glyph U+00F3 MAD 1.49,
		// largest byte difference 81 (U+003D).
		{"0-255.pbf", bounds{onlyRef: []uint32{29, 127}, minBitmaps: 187, maxMetricDiffs: 193, mad: 0.348 + 0.05, glyphMAD: 1.49 + 0.5, pixel: 81 + 5}},
		// Measured: 251 bitmaps, MAD 0.494, worst glyph U+0151 MAD 8.47,
		// largest byte difference 65 (U+019E).
		{"256-511.pbf", bounds{minBitmaps: 251, maxMetricDiffs: 256, mad: 0.494 + 0.05, glyphMAD: 8.47 + 0.5, pixel: 65 + 5}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, ours, ref := renderAgainst(t, font, fixtures.Path(t, tileserverRS+tt.file))
			// Every top differs (see above): the metric bound is the range.
			c.check(t, tt.b)
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
		})
	}
	// U+1100-U+11FF (Hangul Jamo) is in neither this font nor the
	// reference's: the range must be empty on both sides, which is a check
	// of coverage, not a comparison of glyphs.
	t.Run("4352-4607.pbf", func(t *testing.T) {
		c, _, _ := renderAgainst(t, font, fixtures.Path(t, tileserverRS+"4352-4607.pbf"))
		if c.ours != 0 || c.ref != 0 {
			t.Errorf("Hangul Jamo: %d glyphs here, %d in the reference; want none on both sides", c.ours, c.ref)
		}
		t.Log("empty on both sides as expected: not counted as a glyph comparison")
	})
}

// TestReferenceNotoSansBold compares with OpenFreeMap's ranges, made from an
// older Noto Sans Bold merged with other Noto fonts: the shared glyphs must
// mostly agree, although the font's design changed in places.
func TestReferenceNotoSansBold(t *testing.T) {
	font := systemFont(t, notoBold, "fonts-noto-core")
	tests := []struct {
		file string
		b    bounds
	}{
		// The reference maps the C0 controls but U+000D (from a merged
		// font). Measured: 17 metric differences, 181 bitmaps, MAD 1.185,
		// worst glyph U+00EF MAD 22.55, largest byte difference 39 (U+00C5).
		{"0-255.pbf", bounds{
			onlyRef:    []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
			minBitmaps: 181, maxMetricDiffs: 17 + 2, mad: 1.185 + 0.05, glyphMAD: 22.55 + 0.5, pixel: 39 + 5}},
		// The newer font adds U+1E9C, U+1E9D, U+1E9F and U+1EFA-U+1EFF.
		// Measured: 43 metric differences, 206 bitmaps, MAD 1.882, worst
		// glyph U+1E3B MAD 25.21, largest byte difference 33 (U+1EF2).
		{"7680-7935.pbf", bounds{
			onlyOurs:   []uint32{7836, 7837, 7839, 7930, 7931, 7932, 7933, 7934, 7935},
			minBitmaps: 206, maxMetricDiffs: 43 + 2, mad: 1.882 + 0.05, glyphMAD: 25.21 + 0.5, pixel: 33 + 5}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, _, _ := renderAgainst(t, font, fixtures.Path(t, openfreemapDir+tt.file))
			c.check(t, tt.b)
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
