package sprite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func pngBytes(t testing.TB, w, h int, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		copy(img.Pix[i*4:], []byte{c.R, c.G, c.B, c.A})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func svgSquare(size int, fill string) []byte {
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"><rect width="%d" height="%d" fill="%s"/></svg>`, size, size, size, size, fill))
}

func mustSheet(t *testing.T, s *Sheet) (map[string]Entry, *image.NRGBA) {
	t.Helper()
	var idx map[string]Entry
	if err := json.Unmarshal(s.Index, &idx); err != nil {
		t.Fatalf("index: %v", err)
	}
	return idx, decodeNRGBA(t, s.PNG)
}

func TestLoadIconsNaming(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	fsys := fstest.MapFS{
		"a.svg":            {Data: svgSquare(4, "#000")},
		"sub/deeper/b.SVG": {Data: svgSquare(4, "#000")},
		"p.png":            {Data: pngBytes(t, 3, 3, red)},
		"p@2x.png":         {Data: pngBytes(t, 6, 6, red)},
		"only2x@2x.png":    {Data: pngBytes(t, 8, 8, red)},
		"dup.svg":          {Data: svgSquare(4, "#000")},
		"dup.png":          {Data: pngBytes(t, 3, 3, red)},
		".hidden.svg":      {Data: svgSquare(4, "#000")},
		".git/x.svg":       {Data: svgSquare(4, "#000")},
		"readme.txt":       {Data: []byte("hello")},
		"svgwith@2x.svg":   {Data: svgSquare(4, "#000")},
		"withpng.svg":      {Data: svgSquare(4, "#000")},
		"withpng@2x.png":   {Data: pngBytes(t, 8, 8, red)},
	}
	icons, skipped, err := LoadIcons(context.Background(), fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ic := range icons {
		names = append(names, ic.Name)
	}
	want := []string{"a", "dup", "only2x", "p", "sub/deeper/b", "svgwith@2x", "withpng"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("names %v, want %v", names, want)
	}
	if len(skipped) != 1 || skipped[0].Source != "dup.png" {
		t.Fatalf("skipped %v, want dup.png", skipped)
	}
	for _, ic := range icons {
		switch ic.Name {
		case "p":
			if len(ic.Data) == 0 || len(ic.Data2x) == 0 {
				t.Errorf("p: want both bitmaps")
			}
		case "only2x":
			if len(ic.Data) != 0 || len(ic.Data2x) == 0 {
				t.Errorf("only2x: want just the @2x bitmap")
			}
		case "dup":
			if !bytes.HasPrefix(ic.Data, []byte("<svg")) {
				t.Errorf("dup: the SVG must win")
			}
		case "withpng":
			if len(ic.Data2x) != 0 {
				t.Errorf("withpng: a stray @2x PNG next to an SVG must be ignored")
			}
		}
	}
}

func TestPNGPixelRatios(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	blue := color.NRGBA{0, 0, 255, 200}
	icons := []Icon{
		{Name: "both", Data: pngBytes(t, 3, 3, red), Data2x: pngBytes(t, 6, 6, blue)},
		{Name: "one", Data: pngBytes(t, 5, 4, red)},
		{Name: "two", Data2x: pngBytes(t, 8, 8, blue)},
	}
	tests := []struct {
		ratio int
		want  map[string][3]int // width, height, pixelRatio
		col   map[string]color.NRGBA
	}{
		{1, map[string][3]int{"both": {3, 3, 1}, "one": {5, 4, 1}, "two": {8, 8, 2}}, map[string]color.NRGBA{"both": red, "one": red, "two": blue}},
		{2, map[string][3]int{"both": {6, 6, 2}, "one": {5, 4, 1}, "two": {8, 8, 2}}, map[string]color.NRGBA{"both": blue, "one": red, "two": blue}},
	}
	for _, tt := range tests {
		s, err := BuildSheet(context.Background(), icons, Options{PixelRatio: tt.ratio})
		if err != nil {
			t.Fatal(err)
		}
		idx, img := mustSheet(t, s)
		for n, w := range tt.want {
			e := idx[n]
			if e.Width != w[0] || e.Height != w[1] || e.PixelRatio != w[2] {
				t.Errorf("ratio %d %s: %+v, want %v", tt.ratio, n, e, w)
			}
			// PNG icons are copied exactly.
			for y := e.Y; y < e.Y+e.Height; y++ {
				for x := e.X; x < e.X+e.Width; x++ {
					if got := img.NRGBAAt(x, y); got != tt.col[n] {
						t.Fatalf("ratio %d %s: pixel (%d,%d) = %v, want %v", tt.ratio, n, x, y, got, tt.col[n])
					}
				}
			}
		}
	}
}

func TestBadIconsAreSkipped(t *testing.T) {
	good := svgSquare(4, "#0f0")
	icons := []Icon{
		{Name: "good", Data: good},
		{Name: "not-xml", Data: []byte("<svg><g></svg>")},
		{Name: "not-svg", Data: []byte("<html/>")},
		{Name: "huge", Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="5000" height="10"/>`)},
		{Name: "truncated-png", Data: pngBytes(t, 4, 4, color.NRGBA{A: 255})[:40]},
		{Name: "huge-png", Data: pngBytes(t, 1100, 2, color.NRGBA{A: 255})},
		{Name: "empty"},
		{Name: "../escape", Data: good},
		{Name: "good", Data: good},
	}
	s, err := BuildSheet(context.Background(), icons, Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := mustSheet(t, s)
	if len(idx) != 1 || idx["good"].Width != 4 {
		t.Fatalf("index %v, want only good", idx)
	}
	reasons := map[string]string{}
	for _, e := range s.Skipped {
		reasons[e.Name] += e.Err.Error() + ";"
	}
	for _, n := range []string{"not-xml", "not-svg", "huge", "truncated-png", "huge-png", "empty", "../escape", "good"} {
		if reasons[n] == "" {
			t.Errorf("%s: not reported as skipped (%v)", n, s.Skipped)
		}
	}
	if !strings.Contains(reasons["huge"], "1024") || !strings.Contains(reasons["good"], "duplicate") {
		t.Errorf("unclear reasons: %v", reasons)
	}
}

func TestLimitsAndEmpty(t *testing.T) {
	icons := []Icon{{Name: "a", Data: svgSquare(2, "#000")}, {Name: "b", Data: svgSquare(2, "#000")}}
	if _, err := BuildSheet(context.Background(), icons, Options{MaxIcons: 1}); !errors.Is(err, ErrTooManyIcons) {
		t.Fatalf("MaxIcons: %v", err)
	}
	if _, err := BuildSheet(context.Background(), icons, Options{PixelRatio: 5}); !errors.Is(err, ErrBadRatio) {
		t.Fatalf("ratio: %v", err)
	}
	big := []Icon{{Name: "a", Data: svgSquare(40, "#000")}, {Name: "b", Data: svgSquare(40, "#000")}}
	if _, err := BuildSheet(context.Background(), big, Options{MaxSheetSide: 50}); !errors.Is(err, ErrSheetTooBig) {
		t.Fatalf("sheet side: %v", err)
	}
	huge := []Icon{{Name: "a", Data: svgSquare(1000, "#000")}}
	if s, err := BuildSheet(context.Background(), huge, Options{PixelRatio: 4}); err != nil || len(s.Skipped) != 1 || !strings.Contains(s.Skipped[0].Error(), "exceeds limits") {
		t.Fatalf("icon pixel limit: %v %v", s, err)
	}
	s, err := BuildSheet(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Index) != "{}" || s.Width != 1 || s.Height != 1 {
		t.Fatalf("empty sheet: %s %dx%d", s.Index, s.Width, s.Height)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildSheet(ctx, icons, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	_, _, err = LoadIcons(context.Background(), fstest.MapFS{"a.svg": {Data: make([]byte, 100)}}, Options{MaxFileBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIndexFormat(t *testing.T) {
	png1, idx, err := Build(context.Background(), []Icon{{Name: "x/y", Data: svgSquare(3, "#000")}}, Options{PixelRatio: 2, SDF: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"x/y":{"x":0,"y":0,"width":18,"height":18,"pixelRatio":2,"sdf":true}}`
	if string(idx) != want {
		t.Fatalf("index %s, want %s", idx, want)
	}
	if !bytes.HasPrefix(png1, []byte("\x89PNG")) {
		t.Fatal("not a PNG")
	}
	_, idx, err = Build(context.Background(), []Icon{{Name: "x", Data: svgSquare(3, "#000")}}, Options{})
	if err != nil || string(idx) != `{"x":{"x":0,"y":0,"width":3,"height":3,"pixelRatio":1}}` {
		t.Fatalf("non-sdf index %s (%v)", idx, err)
	}
}

func TestSDFValues(t *testing.T) {
	// A 20x20 opaque square: the SDF is 6 px larger, full alpha deep inside, about 191 on
	// the edge, falling by 255/8 per pixel outside, 0 far away.
	src := image.NewNRGBA(image.Rect(0, 0, 20, 20))
	for i := 3; i < len(src.Pix); i += 4 {
		src.Pix[i] = 255
	}
	out := sdfIcon(src, 3, 8, 0.25)
	if out.Bounds().Dx() != 26 || out.Bounds().Dy() != 26 {
		t.Fatalf("size %v", out.Bounds())
	}
	a := func(x, y int) int { return int(out.NRGBAAt(x, y).A) }
	if a(13, 13) != 255 {
		t.Errorf("centre alpha %d, want 255", a(13, 13))
	}
	// Distances are measured between pixel centres: the first inside pixel is 1 px from
	// the nearest outside one (223), and each pixel outward loses 255/8 (159, 127, 95), the
	// values of the reference sheets.
	row := 13
	for x, want := range map[int]int{3: 223, 2: 159, 1: 127, 0: 95} {
		if got := a(x, row); got != want {
			t.Errorf("alpha at x=%d: %d, want %d", x, got, want)
		}
	}
	for x := 0; x < 13; x++ {
		if a(x, row) > a(x+1, row) {
			t.Errorf("alpha not increasing towards the centre at x=%d", x)
		}
		if c := out.NRGBAAt(x, row); c.R != 255 || c.G != 255 || c.B != 255 {
			t.Errorf("SDF colour %v, want white", c)
		}
	}
}

func TestEDTAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20; iter++ {
		w, h := 1+rng.IntN(12), 1+rng.IntN(12)
		grid := make([]float64, w*h)
		var seeds [][2]int
		for i := range grid {
			if rng.IntN(5) == 0 {
				grid[i] = 0
				seeds = append(seeds, [2]int{i % w, i / w})
			} else {
				grid[i] = edtInf
			}
		}
		n := max(w, h)
		edt2D(grid, w, h, make([]float64, n), make([]float64, n+1), make([]int, n), make([]float64, n))
		for i, got := range grid {
			want := edtInf
			x, y := i%w, i/w
			for _, s := range seeds {
				d := float64((x-s[0])*(x-s[0]) + (y-s[1])*(y-s[1]))
				want = math.Min(want, d)
			}
			if len(seeds) == 0 {
				if got < 1e19 {
					t.Fatalf("no seeds: got %v", got)
				}
				continue
			}
			if got != want {
				t.Fatalf("%dx%d at (%d,%d): got %v want %v", w, h, x, y, got, want)
			}
		}
	}
}

func TestPacking(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for iter := 0; iter < 30; iter++ {
		n := 1 + rng.IntN(60)
		rs := make([]rect, n)
		area := 0
		for i := range rs {
			rs[i] = rect{name: fmt.Sprintf("i%03d", i), w: 1 + rng.IntN(40), h: 1 + rng.IntN(40)}
			area += rs[i].w * rs[i].h
		}
		again := append([]rect(nil), rs...)
		w, h := packRects(rs)
		w2, h2 := packRects(again)
		if w != w2 || h != h2 {
			t.Fatalf("not deterministic: %dx%d vs %dx%d", w, h, w2, h2)
		}
		for i := range rs {
			if rs[i] != again[i] {
				t.Fatalf("not deterministic: %+v vs %+v", rs[i], again[i])
			}
			a := image.Rect(rs[i].x, rs[i].y, rs[i].x+rs[i].w, rs[i].y+rs[i].h)
			if !a.In(image.Rect(0, 0, w, h)) {
				t.Fatalf("rect %v outside %dx%d", a, w, h)
			}
			for j := i + 1; j < len(rs); j++ {
				b := image.Rect(rs[j].x, rs[j].y, rs[j].x+rs[j].w, rs[j].y+rs[j].h)
				if a.Overlaps(b) {
					t.Fatalf("rects %v and %v overlap", a, b)
				}
			}
		}
		if eff := float64(area) / float64(w*h); n >= 10 && eff < 0.6 {
			t.Errorf("%d rects packed at %.0f%% efficiency", n, eff*100)
		}
	}
}

func writeFile(t *testing.T, p string, data []byte, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	icons := filepath.Join(dir, "icons")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	writeFile(t, filepath.Join(icons, "a.svg"), svgSquare(4, "#f00"), t0)
	writeFile(t, filepath.Join(icons, "sub", "b.svg"), svgSquare(6, "#00f"), t0)
	// A secret outside the icon folder, reachable only through a symbolic link.
	writeFile(t, filepath.Join(dir, "secret.svg"), svgSquare(9, "#000"), t0)
	if err := os.Symlink(filepath.Join(dir, "secret.svg"), filepath.Join(icons, "link.svg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(icons, "up")); err != nil {
		t.Fatal(err)
	}

	c := NewCache()
	s1, err := c.Get(ctx, icons, Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := mustSheet(t, s1)
	if len(idx) != 2 || idx["a"].Width != 4 || idx["sub/b"].Width != 6 {
		t.Fatalf("index %v", idx)
	}
	if len(s1.ETag) != 34 || s1.ETag[0] != '"' {
		t.Fatalf("ETag %q", s1.ETag)
	}
	if s2, err := c.Get(ctx, icons, Options{}); err != nil || s2 != s1 || c.Builds() != 1 {
		t.Fatalf("second Get rebuilt (builds %d, err %v)", c.Builds(), err)
	}
	// Other options are another sheet.
	s3, err := c.Get(ctx, icons, Options{PixelRatio: 2})
	if err != nil || c.Builds() != 2 {
		t.Fatalf("2x: builds %d, err %v", c.Builds(), err)
	}
	if idx3, _ := mustSheet(t, s3); idx3["a"].Width != 8 {
		t.Fatalf("2x index %v", idx3)
	}
	// Changing an icon (same size, new mtime) rebuilds.
	writeFile(t, filepath.Join(icons, "a.svg"), svgSquare(4, "#0f0"), t0.Add(time.Second))
	s4, err := c.Get(ctx, icons, Options{})
	if err != nil || s4 == s1 || c.Builds() != 3 {
		t.Fatalf("changed icon: builds %d, err %v", c.Builds(), err)
	}
	if s4.ETag == s1.ETag {
		t.Fatal("ETag unchanged after the icon changed")
	}
	idx4, img4 := mustSheet(t, s4)
	if got := img4.NRGBAAt(idx4["a"].X+1, idx4["a"].Y+1); got != (color.NRGBA{0, 255, 0, 255}) {
		t.Fatalf("rebuilt icon colour %v, want green", got)
	}
	// Adding an icon rebuilds and shows it.
	writeFile(t, filepath.Join(icons, "c.png"), pngBytes(t, 2, 2, color.NRGBA{A: 255}), t0)
	s5, err := c.Get(ctx, icons, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if idx5, _ := mustSheet(t, s5); len(idx5) != 3 || idx5["c"].Width != 2 {
		t.Fatalf("after adding: %v", idx5)
	}
	// Missing directories are fs.ErrNotExist.
	if _, err := c.Get(ctx, filepath.Join(dir, "nope"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing dir: %v", err)
	}
	// Invalidate forces a rebuild.
	before := c.Builds()
	c.Invalidate(icons)
	if _, err := c.Get(ctx, icons, Options{}); err != nil || c.Builds() != before+1 {
		t.Fatalf("after Invalidate: builds %d (before %d), err %v", c.Builds(), before, err)
	}
	// RecheckAfter trusts the cached sheet for a while.
	c2 := &Cache{RecheckAfter: time.Hour}
	first, _ := c2.Get(ctx, icons, Options{})
	writeFile(t, filepath.Join(icons, "d.svg"), svgSquare(3, "#000"), t0)
	if again, _ := c2.Get(ctx, icons, Options{}); again != first {
		t.Fatal("RecheckAfter: rebuilt too early")
	}
}

func TestCacheEviction(t *testing.T) {
	ctx := context.Background()
	c := &Cache{MaxEntries: 2}
	var dirs []string
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		writeFile(t, filepath.Join(d, "a.svg"), svgSquare(2, "#000"), time.Now())
		dirs = append(dirs, d)
		if _, err := c.Get(ctx, d, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	n := len(c.entries)
	_, hasFirst := c.entries[cacheKey{dir: dirs[0], ratio: 1}]
	c.mu.Unlock()
	if n != 2 || hasFirst {
		t.Fatalf("entries %d, first kept %v", n, hasFirst)
	}
}

func TestConcurrentGetBuildsOnce(t *testing.T) {
	ctx := context.Background()
	d := t.TempDir()
	for i := 0; i < 5; i++ {
		writeFile(t, filepath.Join(d, fmt.Sprintf("i%d.svg", i)), svgSquare(16, "#000"), time.Now())
	}
	c := NewCache()
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := c.Get(ctx, d, Options{})
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if c.Builds() != 1 {
		t.Fatalf("builds %d, want 1", c.Builds())
	}
}

func TestStretchMetadata(t *testing.T) {
	src := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">
  <rect width="20" height="10" fill="#ccc"/>
  <rect id="mapbox-content" x="2" y="1" width="16" height="8" fill="none"/>
  <rect id="mapbox-stretch-x-1" x="3" y="0" width="4" height="10" fill="none"/>
  <rect id="mapbox-stretch-x-2" x="13" y="0" width="4" height="10" fill="none"/>
  <rect id="mapbox-stretch" x="0" y="2" width="20" height="6" fill="none"/>
</svg>`)
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{PixelRatio: 1}, `"content":[2,1,18,9],"stretchX":[[3,7],[13,17]],"stretchY":[[2,8]]`},
		{Options{PixelRatio: 2}, `"content":[4,2,36,18],"stretchX":[[6,14],[26,34]],"stretchY":[[4,16]]`},
		{Options{PixelRatio: 1, SDF: true}, `"content":[5,4,21,12],"stretchX":[[6,10],[16,20]],"stretchY":[[5,11]]`},
	} {
		_, idx, err := Build(context.Background(), []Icon{{Name: "label", Data: src}}, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(idx), tt.want) {
			t.Errorf("%+v: index %s, want it to contain %s", tt.opts, idx, tt.want)
		}
	}
}

func TestPackingIsRoughlySquare(t *testing.T) {
	tests := []struct {
		n, w, h int
		maxSide int
	}{
		{215, 15, 15, 15 * 15}, // maki at 1x: 15×15 grid
		{100, 10, 10, 100},
		{7, 40, 10, 80},
		{1, 30, 5, 30},
	}
	for _, tt := range tests {
		rs := make([]rect, tt.n)
		for i := range rs {
			rs[i] = rect{name: fmt.Sprint(i), w: tt.w, h: tt.h}
		}
		w, h := packRects(rs)
		if max(w, h) > tt.maxSide {
			t.Errorf("%d icons of %dx%d: sheet %dx%d, want sides ≤ %d", tt.n, tt.w, tt.h, w, h, tt.maxSide)
		}
	}
}

func TestBuildDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.svg"), svgSquare(5, "#123456"), time.Now())
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.png"), pngBytes(t, 2, 2, color.NRGBA{A: 255}), time.Now())
	if err := os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(dir, "secret.png")); err != nil {
		t.Fatal(err)
	}
	s, err := BuildDir(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx, img := mustSheet(t, s)
	if len(idx) != 1 || idx["x"].Width != 5 {
		t.Fatalf("index %v", idx)
	}
	if got := img.NRGBAAt(2, 2); got != (color.NRGBA{0x12, 0x34, 0x56, 255}) {
		t.Fatalf("pixel %v", got)
	}
	if _, err := BuildDir(context.Background(), filepath.Join(dir, "missing"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestSDFBufferFollowsBitmapRatio(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	icons := []Icon{
		{Name: "png1x", Data: pngBytes(t, 4, 4, red)},
		{Name: "png2x", Data: pngBytes(t, 4, 4, red), Data2x: pngBytes(t, 8, 8, red)},
		{Name: "svg", Data: svgSquare(4, "#f00")},
	}
	s, err := BuildSheet(context.Background(), icons, Options{PixelRatio: 2, SDF: true})
	if err != nil {
		t.Fatal(err)
	}
	idx, img := mustSheet(t, s)
	want := map[string][2]int{"png1x": {4 + 6, 1}, "png2x": {8 + 12, 2}, "svg": {8 + 12, 2}}
	for n, w := range want {
		e := idx[n]
		if e.Width != w[0] || e.Height != w[0] || e.PixelRatio != w[1] || !e.SDF {
			t.Errorf("%s: %+v, want size %d ratio %d sdf", n, e, w[0], w[1])
		}
		// The icon's centre is inside the shape: full alpha, white.
		if c := img.NRGBAAt(e.X+e.Width/2, e.Y+e.Height/2); c != (color.NRGBA{255, 255, 255, 255}) {
			t.Errorf("%s centre %v, want opaque white", n, c)
		}
		// The corner is outside: low alpha.
		if c := img.NRGBAAt(e.X, e.Y); c.A > 100 {
			t.Errorf("%s corner alpha %d, want < 100", n, c.A)
		}
	}
}
