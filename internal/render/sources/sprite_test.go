package sources

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
)

// testSheet encodes a sheet of w x h pixels, each of its own colour and
// alpha, and returns it with its premultiplied reference.
func testSheet(t *testing.T, w, h int) ([]byte, *image.RGBA) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 9), uint8(y * 13), uint8(x ^ y), uint8(x*y + 3)})
		}
	}
	ref := image.NewRGBA(img.Rect)
	draw.Draw(ref, ref.Rect, img, image.Point{}, draw.Src)
	return rendertest.EncodePNG(t, img), ref
}

// TestSpriteSetIcon finds icons by their sheet's prefix, the style's last
// sheet winning a name, and cuts each once under concurrent use.
func TestSpriteSetIcon(t *testing.T) {
	data, _ := testSheet(t, 8, 8)
	mk := func(names ...string) *sheet {
		idx := "{"
		for i, n := range names {
			if i > 0 {
				idx += ","
			}
			idx += fmt.Sprintf(`%q: {"x": %d, "y": 0, "width": 1, "height": 1}`, n, i)
		}
		sh, err := decodeSheet([]byte(idx+"}"), data, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	first, second, other := mk("a", "b", "x:y"), mk("b", "c"), mk("y", "d")
	sp := &Sprites{}
	sp.once.Do(func() {})
	sp.sheets = []namedSheet{{"", first}, {"", second}, {"x:", other}}
	tests := []struct {
		name string
		want *sheet
	}{
		{"a", first},
		{"b", second}, // the later sheet's
		{"c", second},
		{"x:y", other}, // the prefixed sheet's, over the default sheet's "x:y"
		{"x:d", other},
		{"d", nil},
		{"x:a", nil},
	}
	for _, tc := range tests {
		var wg sync.WaitGroup
		got := make([]*Icon, 4)
		for i := range got {
			wg.Go(func() { got[i] = sp.Icon(t.Context(), tc.name) })
		}
		wg.Wait()
		for _, ic := range got[1:] {
			if ic != got[0] {
				t.Fatalf("%s: cut more than once", tc.name)
			}
		}
		var want *Icon
		if tc.want != nil {
			want = tc.want.icon(tc.name[len(tc.name)-1:])
		}
		if got[0] != want {
			t.Errorf("%s: the wrong sheet's icon", tc.name)
		}
	}
}

// TestSpriteSheetsShared reads one sheet for the icons and the patterns:
// URLs with a query keep it after the scale and extension, the patterns'
// images are the icons' pixels, and on a high-density screen the icons
// take the @2x sheet or none (as GL loads sprites) while the patterns fall
// back to the plain one.
func TestSpriteSheetsShared(t *testing.T) {
	data, ref := testSheet(t, 12, 10)
	idx := []byte(`{"a": {"x": 2, "y": 3, "width": 4, "height": 5, "pixelRatio": 2}}`)
	for _, tc := range []struct {
		name  string
		ratio float64
		files rendertest.Files
		icons bool // the icons find "a"
	}{
		{"1x", 1, rendertest.Files{"https://h/s.json?k=1": idx, "https://h/s.png?k=1": data}, true},
		{"2x", 2, rendertest.Files{"https://h/s@2x.json?k=1": idx, "https://h/s@2x.png?k=1": data}, true},
		{"2x, only the plain sheet", 2, rendertest.Files{"https://h/s.json?k=1": idx, "https://h/s.png?k=1": data}, false},
	} {
		st, err := style.Parse([]byte(`{"version": 8, "sprite": "https://h/s?k=1", "sources": {}, "layers": []}`))
		if err != nil {
			t.Fatal(err)
		}
		v := scene.View{Zoom: 1, Width: 8, Height: 8, PixelRatio: tc.ratio}
		s := NewSet(st, v, tc.files, slog.New(slog.DiscardHandler), nil)
		icons := NewSprites(s)
		patterns := NewPatterns(t.Context(), icons)

		img := patterns.Image("a")
		if img == nil {
			t.Fatalf("%s: no pattern image", tc.name)
		}
		if img.Ratio != 2 || img.Rect != image.Rect(0, 0, 4, 5) {
			t.Errorf("%s: pattern image %v at ratio %v", tc.name, img.Rect, img.Ratio)
		}
		want := ref.SubImage(image.Rect(2, 3, 6, 8)).(*image.RGBA)
		for y := range 5 {
			if got, w := img.Sheet.Pix[img.Sheet.PixOffset(0, y):][:16], want.Pix[want.PixOffset(2, 3+y):][:16]; !bytes.Equal(got, w) {
				t.Fatalf("%s: pattern row %d is %v, want %v", tc.name, y, got, w)
			}
		}
		ic := icons.Icon(t.Context(), "a")
		if (ic != nil) != tc.icons {
			t.Fatalf("%s: icon %v, want one: %v", tc.name, ic, tc.icons)
		}
		if ic != nil && (&ic.Pattern != img || &ic.Pix[0] != &img.Sheet.Pix[0]) {
			t.Errorf("%s: the icon and the pattern were decoded apart", tc.name)
		}
	}
}

// TestDecodeSheet cuts icons as image/draw converts the sheet, leaves out
// entries outside it, and keeps an undecodable image's sheet empty.
func TestDecodeSheet(t *testing.T) {
	data, ref := testSheet(t, 40, 30)
	idx := []byte(`{
		"a": {"x": 0, "y": 0, "width": 40, "height": 30, "pixelRatio": 2},
		"b": {"x": 5, "y": 7, "width": 3, "height": 20, "sdf": true},
		"outside": {"x": 39, "y": 0, "width": 2, "height": 2},
		"empty": {"x": 1, "y": 1, "width": 0, "height": 2}
	}`)
	sh, err := decodeSheet(idx, data, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		r     image.Rectangle // nil icon if empty
		ratio float64
		sdf   bool
	}{
		{"a", image.Rect(0, 0, 40, 30), 2, false},
		{"b", image.Rect(5, 7, 8, 27), 1, true},
		{"outside", image.Rectangle{}, 0, false},
		{"empty", image.Rectangle{}, 0, false},
		{"missing", image.Rectangle{}, 0, false},
	}
	for _, tc := range tests {
		ic := sh.icon(tc.name)
		if tc.r.Empty() {
			if ic != nil {
				t.Errorf("%s: an icon", tc.name)
			}
			continue
		}
		if ic == nil {
			t.Fatalf("%s: no icon", tc.name)
		}
		if ic.W != tc.r.Dx() || ic.H != tc.r.Dy() || ic.Ratio != tc.ratio || ic.SDF != tc.sdf {
			t.Errorf("%s: %dx%d ratio %v sdf %v", tc.name, ic.W, ic.H, ic.Ratio, ic.SDF)
		}
		want := ref.SubImage(tc.r).(*image.RGBA)
		for y := range ic.H {
			o := want.PixOffset(tc.r.Min.X, tc.r.Min.Y+y)
			if !bytes.Equal(ic.Pix[y*4*ic.W:(y+1)*4*ic.W], want.Pix[o:o+4*ic.W]) {
				t.Fatalf("%s: row %d differs from image/draw's", tc.name, y)
			}
		}
		if sh.icon(tc.name) != ic {
			t.Errorf("%s: cut twice", tc.name)
		}
	}

	if _, err := decodeSheet([]byte(`{"a": 1`), data, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("a broken index decoded")
	}
	sh, err = decodeSheet(idx, data[:len(data)/2], slog.New(slog.DiscardHandler))
	if err == nil || sh == nil || sh.icon("a") != nil {
		t.Errorf("a broken image: sheet %v, error %v", sh, err)
	}
}

// TestSheetCacheBounded keeps decoded sprite sheets within its byte bound,
// the oldest out first, and refuses a sheet over half the bound.
func TestSheetCacheBounded(t *testing.T) {
	sheetOf := func(n int) *sheet {
		return &sheet{icons: map[string]*sheetIcon{"a": {r: image.Rect(0, 0, n, 1)}}}
	}
	c := &sheetCache{m: map[sheetID]*sheet{}, max: 4000}
	for i := range 10 {
		c.add(sheetID{uint64(i)}, sheetOf(200))
		if c.bytes > c.max {
			t.Fatalf("after %d sheets the cache holds %d bytes, bound %d", i+1, c.bytes, c.max)
		}
	}
	if _, ok := c.get(sheetID{0}); ok {
		t.Error("the oldest sheet was kept past the bound")
	}
	if _, ok := c.get(sheetID{9}); !ok {
		t.Error("the newest sheet is missing")
	}
	c.add(sheetID{99}, sheetOf(600))
	if _, ok := c.get(sheetID{99}); ok {
		t.Error("a sheet over half the bound was kept")
	}
}

// TestSheetKey tells sheets apart by index and image, and by where one
// ends and the other begins.
func TestSheetKey(t *testing.T) {
	keys := map[sheetID]string{}
	for _, tc := range [][2]string{{"", ""}, {"a", ""}, {"", "a"}, {"ab", "c"}, {"a", "bc"}, {"{}", "png"}, {"{}", "pnh"}} {
		k := sheetKey([]byte(tc[0]), []byte(tc[1]))
		if prev, ok := keys[k]; ok {
			t.Errorf("%q and %s share a key", tc, prev)
		}
		keys[k] = fmt.Sprintf("%q", tc)
		if sheetKey([]byte(tc[0]), []byte(tc[1])) != k {
			t.Errorf("%q: the key changes", tc)
		}
	}
}

func TestSpriteURL(t *testing.T) {
	tests := []struct{ base, suffix, want string }{
		{"local://sprites/a", "@2x.json", "local://sprites/a@2x.json"},
		{"https://x/s?key=1", ".png", "https://x/s.png?key=1"},
	}
	for _, tc := range tests {
		if got := spriteURL(tc.base, tc.suffix); got != tc.want {
			t.Errorf("spriteURL(%q, %q) = %q, want %q", tc.base, tc.suffix, got, tc.want)
		}
	}
}
