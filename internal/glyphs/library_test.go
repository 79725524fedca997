package glyphs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

var quiet = slog.New(slog.DiscardHandler)

// copyShared copies a shared fixture to dir/rel.
func copyShared(t *testing.T, from, dir, rel string) {
	t.Helper()
	data := readShared(t, from)
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fontsDir builds a fonts folder: fonts at several depths, two files with the
// same face name, files that are not fonts, and symbolic links that lead out
// of the folder (to a file and to a folder holding a font).
func fontsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyShared(t, overpassRegular, dir, "overpass-mono-regular.ttf")
	copyShared(t, overpassLight, dir, "sub_dir/overpass-mono-light.otf")
	copyShared(t, openSansDir+"OpenSans-Regular.ttf", dir, "open/OpenSans-Regular.ttf")
	copyShared(t, openSansDir+"OpenSans-Bold.ttf", dir, "open/deeper/OpenSans-Bold.TTF")
	copyShared(t, dummy3320, dir, "fonts2/u+3320.ttf")
	copyShared(t, dummy1f60a, dir, "fonts2/u+1f60a.ttf")
	if err := os.WriteFile(filepath.Join(dir, "garbage.ttf"), []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte("fonts"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	copyShared(t, openSansDir+"OpenSans-Italic.ttf", outside, "OpenSans-Italic.ttf")
	copyShared(t, trimFont, outside, "more/trim.ttf")
	if err := os.Symlink(filepath.Join(outside, "OpenSans-Italic.ttf"), filepath.Join(dir, "escape.ttf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../"+filepath.Base(outside)+"/OpenSans-Italic.ttf", filepath.Join(dir, "open", "relative-escape.ttf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "more"), filepath.Join(dir, "escape-dir")); err != nil {
		t.Fatal(err)
	}
	// The links work for anyone who follows them.
	for _, p := range []string{"escape.ttf", "open/relative-escape.ttf", "escape-dir/trim.ttf"} {
		if st, err := os.Stat(filepath.Join(dir, p)); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("symlink %s does not lead to a file: %v", p, err)
		}
	}
	return dir
}

func openLibrary(t testing.TB, dir string, opts ...Option) *Library {
	t.Helper()
	l, err := Open(context.Background(), dir, append([]Option{WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestLibraryScan(t *testing.T) {
	l := openLibrary(t, fontsDir(t))
	want := []string{"DummyTestFont Regular", "Open Sans Bold", "Open Sans Regular", "Overpass Mono Light", "Overpass Mono Regular"}
	if got := l.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %q, want %q (symlinks out of the folder must not be followed)", got, want)
	}
	infos := l.Fonts()
	i := slices.IndexFunc(infos, func(fi FontInfo) bool { return fi.Name == "Overpass Mono Light" })
	if i < 0 || infos[i].File != "sub_dir/overpass-mono-light.otf" || infos[i].Family != "Overpass Mono" || infos[i].Style != "Light" {
		t.Fatalf("Fonts() = %+v", infos)
	}
	if !l.Has("open sans regular") || l.Has("Open Sans Italic") || l.Has("Trim Regular") {
		t.Fatal("Has: case-insensitive lookup or symlink escape is wrong")
	}
}

func TestOpenMissingFolder(t *testing.T) {
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "nope"), WithLogger(quiet)); err == nil {
		t.Fatal("Open of a missing folder succeeded")
	}
}

func decodeOne(t *testing.T, data []byte) Fontstack {
	t.Helper()
	stacks, err := DecodeRange(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(stacks) != 1 {
		t.Fatalf("%d stacks", len(stacks))
	}
	return stacks[0]
}

// expectedMerge renders each font of the stack on its own and merges them by
// hand: each code point from the first font that has it.
func expectedMerge(t *testing.T, start int, files ...string) []Glyph {
	t.Helper()
	byID := map[uint32]Glyph{}
	for _, file := range files {
		glyphs, err := loadFace(t, fixtures.Path(t, file)).RenderRange(context.Background(), start)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range glyphs {
			if _, ok := byID[g.ID]; !ok {
				byID[g.ID] = g
			}
		}
	}
	var out []Glyph
	for id := uint32(start); id < uint32(start+256); id++ {
		if g, ok := byID[id]; ok {
			out = append(out, g)
		}
	}
	return out
}

func sameGlyphs(t *testing.T, got, want []Glyph) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d glyphs, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Width != w.Width || g.Height != w.Height || g.Left != w.Left || g.Top != w.Top || g.Advance != w.Advance || !bytes.Equal(g.Bitmap, w.Bitmap) {
			t.Fatalf("glyph %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestLibraryRange(t *testing.T) {
	l := openLibrary(t, fontsDir(t))
	ctx := context.Background()
	tests := []struct {
		name  string
		stack []string
		start int
		label string
		files []string
	}{
		{"one font", []string{"Overpass Mono Regular"}, 0, "Overpass Mono Regular", []string{overpassRegular}},
		{"merged", []string{"Overpass Mono Regular", "Open Sans Regular"}, 0, "Overpass Mono Regular,Open Sans Regular", []string{overpassRegular, openSansDir + "OpenSans-Regular.ttf"}},
		{"merged other order", []string{"Open Sans Regular", "Overpass Mono Light"}, 256, "Open Sans Regular,Overpass Mono Light", []string{openSansDir + "OpenSans-Regular.ttf", overpassLight}},
		{"unknown fonts skipped", []string{"Arial Unicode MS Regular", "open sans bold"}, 0, "Open Sans Bold", []string{openSansDir + "OpenSans-Bold.ttf"}},
		{"same name in two files", []string{"DummyTestFont Regular"}, 0x3300, "DummyTestFont Regular", []string{dummy3320}},
		{"empty range", []string{"Overpass Mono Regular"}, 0xAC00, "Overpass Mono Regular", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := l.Range(ctx, tc.stack, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			fs := decodeOne(t, data)
			if fs.Name != tc.label || fs.Range != rangeName(tc.start) {
				t.Fatalf("stack %q range %q, want %q %q", fs.Name, fs.Range, tc.label, rangeName(tc.start))
			}
			sameGlyphs(t, fs.Glyphs, expectedMerge(t, tc.start, tc.files...))
		})
	}
	// Overpass Mono Regular alone: 192 glyphs in 0-255; with Open Sans after
	// it the stack gains Open Sans's extra code points.
	one, _ := l.Range(ctx, []string{"Overpass Mono Regular"}, 0)
	two, _ := l.Range(ctx, []string{"Overpass Mono Regular", "Open Sans Regular"}, 0)
	if n1, n2 := len(decodeOne(t, one).Glyphs), len(decodeOne(t, two).Glyphs); n1 != 192 || n2 <= n1 {
		t.Fatalf("glyph counts %d and %d", n1, n2)
	}
}

func TestLibraryRangeErrors(t *testing.T) {
	l := openLibrary(t, fontsDir(t))
	ctx := context.Background()
	tests := []struct {
		name  string
		stack []string
		start int
		want  error
	}{
		{"unknown", []string{"Arial Unicode MS Regular"}, 0, ErrUnknownFonts},
		{"escaping symlink", []string{"Open Sans Italic"}, 0, ErrUnknownFonts},
		{"empty stack", nil, 0, ErrUnknownFonts},
		{"unaligned", []string{"Open Sans Regular"}, 1, ErrBadRange},
		{"negative", []string{"Open Sans Regular"}, -256, ErrBadRange},
		{"beyond 16 bits", []string{"Open Sans Regular"}, 65536, ErrBadRange},
		{"too many fonts", slices.Repeat([]string{"Open Sans Regular"}, MaxStackFonts+1), 0, ErrBadFontstack},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := l.Range(ctx, tc.stack, tc.start); !errors.Is(err, tc.want) {
				t.Fatalf("Range = %v, want %v", err, tc.want)
			}
		})
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Range(canceled, []string{"Open Sans Regular"}, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Range with a canceled context = %v", err)
	}
}

func TestLibraryCache(t *testing.T) {
	l := openLibrary(t, fontsDir(t))
	ctx := context.Background()
	stack := []string{"Open Sans Regular"}
	a, err := l.Range(ctx, stack, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Range(ctx, stack, 0)
	if err != nil {
		t.Fatal(err)
	}
	if &a[0] != &b[0] || l.renders.Load() != 1 {
		t.Fatalf("second request was built again (renders %d)", l.renders.Load())
	}
	// A stack sharing the font reuses its cached range.
	if _, err := l.Range(ctx, []string{"Open Sans Regular", "Overpass Mono Regular"}, 0); err != nil {
		t.Fatal(err)
	}
	if n := l.renders.Load(); n != 2 {
		t.Fatalf("renders = %d, want 2 (Open Sans from the cache, Overpass rendered)", n)
	}

	// A cache too small for any range keeps nothing but serves the same bytes.
	small := openLibrary(t, l.Dir(), WithCacheBytes(1000))
	c, err := small.Range(ctx, stack, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := small.Range(ctx, stack, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, c) || !bytes.Equal(c, d) || small.renders.Load() != 2 {
		t.Fatalf("uncached ranges differ or were not rebuilt (renders %d)", small.renders.Load())
	}
	if n, used := small.CacheStats(); n != 0 || used != 0 {
		t.Fatalf("small cache holds %d entries, %d bytes", n, used)
	}
	if _, used := l.CacheStats(); used > DefaultCacheBytes || used < int64(len(a)) {
		t.Fatalf("cache accounts for %d bytes", used)
	}
}

func TestLibrarySingleflight(t *testing.T) {
	l := openLibrary(t, fontsDir(t))
	const n = 8
	results := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = l.Range(context.Background(), []string{"Overpass Mono Light"}, 0)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !bytes.Equal(results[i], results[0]) {
			t.Fatalf("request %d: %v", i, errs[i])
		}
	}
	if got := l.renders.Load(); got != 1 {
		t.Fatalf("%d concurrent identical requests rendered %d times, want 1", n, got)
	}
}

func TestLibraryRescan(t *testing.T) {
	dir := fontsDir(t)
	l := openLibrary(t, dir)
	ctx := context.Background()
	if _, err := l.Range(ctx, []string{"Open Sans Regular"}, 0); err != nil {
		t.Fatal(err)
	}
	if l.Has("Open Sans Italic") {
		t.Fatal("Open Sans Italic before it was added")
	}
	copyShared(t, openSansDir+"OpenSans-Italic.ttf", dir, "open/OpenSans-Italic.ttf")
	if err := os.Remove(filepath.Join(dir, "overpass-mono-regular.ttf")); err != nil {
		t.Fatal(err)
	}
	if err := l.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	if !l.Has("Open Sans Italic") || l.Has("Overpass Mono Regular") {
		t.Fatalf("after rescan: %q", l.Names())
	}
	if n, _ := l.CacheStats(); n != 0 {
		t.Fatalf("cache holds %d entries after a rescan", n)
	}
	data, err := l.Range(ctx, []string{"Open Sans Italic"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fs := decodeOne(t, data); fs.Name != "Open Sans Italic" || len(fs.Glyphs) == 0 {
		t.Fatalf("range %q with %d glyphs", fs.Name, len(fs.Glyphs))
	}
	if _, err := l.Range(ctx, []string{"Overpass Mono Regular"}, 0); !errors.Is(err, ErrUnknownFonts) {
		t.Fatalf("removed font: %v", err)
	}
}

func TestLibraryFileChangedAfterScan(t *testing.T) {
	dir := fontsDir(t)
	l := openLibrary(t, dir)
	// Replace a font by another one under the same path: the library must
	// not serve the new face under the old name.
	copyShared(t, overpassLight, dir, "overpass-mono-regular.ttf")
	_, err := l.Range(context.Background(), []string{"Overpass Mono Regular"}, 0)
	if err == nil || errors.Is(err, ErrUnknownFonts) {
		t.Fatalf("Range after the file changed = %v, want an error", err)
	}
}

func TestLRU(t *testing.T) {
	c := newLRU(3 * (entryOverhead + 1 + 10))
	for _, k := range []string{"a", "b", "c"} {
		c.add(k, k, 10)
	}
	if _, ok := c.get("a"); !ok { // a becomes the most recent
		t.Fatal("a missing")
	}
	c.add("d", "d", 10) // evicts b, the least recent
	if _, ok := c.get("b"); ok {
		t.Fatal("b was not evicted")
	}
	for _, k := range []string{"a", "c", "d"} {
		if v, ok := c.get(k); !ok || v != k {
			t.Fatalf("%s: %v %v", k, v, ok)
		}
	}
	c.add("huge", "x", 1<<20) // larger than the budget: not kept, nothing evicted
	if n, used := c.stats(); n != 3 || used != 3*(entryOverhead+1+10) {
		t.Fatalf("stats %d %d", n, used)
	}
	c.add("a", "A", 10) // replacing keeps the accounting right
	if v, _ := c.get("a"); v != "A" {
		t.Fatalf("a = %v", v)
	}
	if n, used := c.stats(); n != 3 || used != 3*(entryOverhead+1+10) {
		t.Fatalf("stats after replace %d %d", n, used)
	}
	c.purge()
	if n, used := c.stats(); n != 0 || used != 0 {
		t.Fatalf("stats after purge %d %d", n, used)
	}
}
