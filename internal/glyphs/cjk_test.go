package glyphs

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

const notoCJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

// TestNotoCJKCollection reads a real OpenType collection (CFF outlines, ten
// faces) when Debian's fonts-noto-cjk is installed. It is optional (a large
// package): it skips when the file is absent even under TESSERA_REQUIRE_TOOLS.
func TestNotoCJKCollection(t *testing.T) {
	data, err := os.ReadFile(notoCJK)
	if err != nil {
		t.Skipf("%s is absent (apt-get install -y fonts-noto-cjk): skipping", notoCJK)
	}
	faces, err := ParseFont(data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range faces {
		names = append(names, f.Name)
	}
	want := []string{
		"Noto Sans CJK JP Regular", "Noto Sans CJK KR Regular", "Noto Sans CJK SC Regular", "Noto Sans CJK TC Regular", "Noto Sans CJK HK Regular",
		"Noto Sans Mono CJK JP Regular", "Noto Sans Mono CJK KR Regular", "Noto Sans Mono CJK SC Regular", "Noto Sans Mono CJK TC Regular", "Noto Sans Mono CJK HK Regular",
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("faces %q", names)
	}
	sc := faces[2]

	// The rendering suite's fullwidth forms range comes from an older
	// Noto Sans CJK SC Regular: same code points, close bitmaps.
	ref := loadReference(t, filepath.Join(fixtures.Path(t, "render-tests/glyphs/NotoCJK"), "65280-65535.pbf"))
	ours, err := sc.RenderRange(context.Background(), 65280)
	if err != nil {
		t.Fatal(err)
	}
	c := compareRange(ours, ref.Glyphs)
	t.Logf("%s vs %s [%s]: %v", sc.Name, ref.Name, ref.Range, c)
	if ref.Name != sc.Name || c.common != 225 || len(c.onlyOurs)+len(c.onlyRef) != 0 || c.mad() > 3 {
		t.Errorf("fullwidth forms differ: %v", c)
	}

	// The first block of CJK ideographs: 256 dense glyphs.
	start := time.Now()
	glyphs, err := sc.RenderRange(context.Background(), 0x4E00)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("range 19968-20223 (%d glyphs) rendered in %v", len(glyphs), time.Since(start))
	if len(glyphs) != 256 {
		t.Fatalf("%d glyphs in 19968-20223", len(glyphs))
	}
	for _, g := range glyphs {
		if g.Advance != 24 || g.Width == 0 || len(g.Bitmap) != int((g.Width+6)*(g.Height+6)) {
			t.Fatalf("glyph %d: %+v", g.ID, g)
		}
	}
}

// BenchmarkRenderRangeNotoCJK renders the first block of CJK ideographs.
func BenchmarkRenderRangeNotoCJK(b *testing.B) {
	data, err := os.ReadFile(notoCJK)
	if err != nil {
		b.Skipf("%s is absent: skipping", notoCJK)
	}
	faces, err := ParseFont(data)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := faces[2].RenderRange(context.Background(), 0x4E00); err != nil {
			b.Fatal(err)
		}
	}
}
