package glyphs

import (
	"context"
	"testing"
)

func BenchmarkRenderRangeNotoSans(b *testing.B) {
	f := loadFace(b, systemFont(b, "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "fonts-noto-core"))
	ctx := context.Background()
	for b.Loop() {
		if _, err := f.RenderRange(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
}
