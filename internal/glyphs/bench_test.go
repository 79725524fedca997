package glyphs

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// notoLibrary opens a library holding only Noto Sans Regular.
func notoLibrary(b *testing.B) *Library {
	src := systemFont(b, notoRegular, "fonts-noto-core")
	dir := b.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "NotoSans-Regular.ttf"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return openLibrary(b, dir)
}

// BenchmarkRenderRangeNotoSans renders Noto Sans Regular's 0-255 range.
func BenchmarkRenderRangeNotoSans(b *testing.B) {
	f := loadFace(b, systemFont(b, notoRegular, "fonts-noto-core"))
	ctx := context.Background()
	for b.Loop() {
		if _, err := f.RenderRange(ctx, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLibraryRangeCold serves Noto Sans Regular 0-255 from an empty
// cache: render, merge and encode.
func BenchmarkLibraryRangeCold(b *testing.B) {
	l := notoLibrary(b)
	ctx := context.Background()
	stack := []string{"Noto Sans Regular"}
	if _, err := l.Range(ctx, stack, 0); err != nil { // read the font file once
		b.Fatal(err)
	}
	for b.Loop() {
		l.cache.purge()
		if _, err := l.Range(ctx, stack, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLibraryRangeFirstUse opens the library and serves one range:
// scanning, reading and parsing the font file, rendering and encoding.
func BenchmarkLibraryRangeFirstUse(b *testing.B) {
	dir := notoLibrary(b).Dir()
	ctx := context.Background()
	for b.Loop() {
		l, err := Open(ctx, dir, WithLogger(quiet))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Range(ctx, []string{"Noto Sans Regular"}, 0); err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}

// BenchmarkLibraryRangeWarm serves a cached range.
func BenchmarkLibraryRangeWarm(b *testing.B) {
	l := notoLibrary(b)
	ctx := context.Background()
	stack := []string{"Noto Sans Regular"}
	if _, err := l.Range(ctx, stack, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.Range(ctx, stack, 0); err != nil {
			b.Fatal(err)
		}
	}
}
