package pyramid

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/imageenc"
)

// tileMap keeps the tiles written.
type tileMap map[[3]int][]byte

func (m tileMap) PutTile(_ context.Context, z, x, y int, data []byte) error {
	m[[3]int{z, x, y}] = data
	return nil
}

// halveWhole is the reference: a whole picture halved by 2x2 alpha-
// weighted averaging of the pixels that exist.
func halveWhole(src *image.NRGBA) *image.NRGBA {
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	dst := image.NewNRGBA(image.Rect(0, 0, (w+1)/2, (h+1)/2))
	for y := 0; y < dst.Bounds().Dy(); y++ {
		for x := 0; x < dst.Bounds().Dx(); x++ {
			var sr, sg, sb, sa, n int
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					if 2*x+dx >= w || 2*y+dy >= h {
						continue
					}
					c := src.NRGBAAt(2*x+dx, 2*y+dy)
					sr += int(c.R) * int(c.A)
					sg += int(c.G) * int(c.A)
					sb += int(c.B) * int(c.A)
					sa += int(c.A)
					n++
				}
			}
			if sa == 0 {
				continue
			}
			dst.SetNRGBA(x, y, color.NRGBA{uint8((sr + sa/2) / sa), uint8((sg + sa/2) / sa), uint8((sb + sa/2) / sa), uint8((sa + n/2) / n)})
		}
	}
	return dst
}

// testPicture has gradients, a transparent hole and half-transparent
// stripes.
func testPicture(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := uint8(255)
			switch {
			case x > w/4 && x < w/2 && y > h/4 && y < h/2:
				a = 0
			case (x/7)%5 == 0:
				a = uint8(x * y % 256)
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 3), uint8(y * 5), uint8(x ^ y), a})
		}
	}
	return img
}

func TestBuild(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {256, 256}, {257, 100}, {700, 1030}, {1200, 300}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			w, h := size[0], size[1]
			src := testPicture(w, h)
			tiles := tileMap{}
			info, err := Build(context.Background(), ImageRows(src), tiles, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Width != w || info.Height != h || info.MinZoom != 0 || info.MaxZoom != MaxZoomFor(w, h) || info.Tiles != len(tiles) {
				t.Fatalf("info %+v, %d tiles", info, len(tiles))
			}
			if 256<<info.MaxZoom < max(w, h) || (info.MaxZoom > 0 && 256<<(info.MaxZoom-1) >= max(w, h)) {
				t.Errorf("max zoom %d for %dx%d", info.MaxZoom, w, h)
			}
			level := src
			for z := info.MaxZoom; z >= 0; z-- {
				lw, lh := LevelSize(w, h, z, info.MaxZoom)
				if level.Bounds().Dx() != lw || level.Bounds().Dy() != lh {
					t.Fatalf("zoom %d: level %v, LevelSize %dx%d", z, level.Bounds(), lw, lh)
				}
				for ty := 0; ty*256 < lh+256; ty++ {
					for tx := 0; tx*256 < lw+256; tx++ {
						on := tx*256 < lw && ty*256 < lh
						if info.Contains(z, tx, ty) != on {
							t.Errorf("Contains(%d, %d, %d) = %v", z, tx, ty, !on)
						}
						data, stored := tiles[[3]int{z, tx, ty}]
						if !on {
							if stored {
								t.Errorf("tile %d/%d/%d past the edge stored", z, tx, ty)
							}
							continue
						}
						checkTile(t, level, data, stored, z, tx, ty)
					}
				}
				level = halveWhole(level)
			}
		})
	}
}

// checkTile compares a stored tile with the reference level's pixels
// (transparent past the picture's edge); an absent tile must be fully
// transparent.
func checkTile(t *testing.T, level *image.NRGBA, data []byte, stored bool, z, tx, ty int) {
	t.Helper()
	var got *image.NRGBA
	if stored {
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("tile %d/%d/%d: %v", z, tx, ty, err)
		}
		if img.Bounds() != image.Rect(0, 0, 256, 256) {
			t.Fatalf("tile %d/%d/%d: %v", z, tx, ty, img.Bounds())
		}
		got = image.NewNRGBA(img.Bounds())
		for y := 0; y < 256; y++ {
			for x := 0; x < 256; x++ {
				got.Set(x, y, img.At(x, y))
			}
		}
	}
	for y := 0; y < 256; y++ {
		for x := 0; x < 256; x++ {
			px, py := tx*256+x, ty*256+y
			var want color.NRGBA
			if image.Pt(px, py).In(level.Bounds()) {
				want = level.NRGBAAt(px, py)
			}
			var have color.NRGBA
			if got != nil {
				have = got.NRGBAAt(x, y)
			}
			if want.A == 0 && have.A == 0 {
				continue
			}
			if have != want {
				t.Fatalf("tile %d/%d/%d (stored %v) pixel %d,%d: %v, want %v", z, tx, ty, stored, x, y, have, want)
			}
		}
	}
}

// TestBuildPNGStream: a PNG read by PNGRows makes the same tiles as the
// picture read whole; JPEG makes opaque tiles in JPEG where asked.
func TestBuildPNGStream(t *testing.T) {
	src := testPicture(600, 520)
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	rows, format, err := Open(bytes.NewReader(buf.Bytes()))
	if err != nil || format != "png" {
		t.Fatal(format, err)
	}
	if _, ok := rows.(*PNGRows); !ok {
		t.Fatalf("a non-interlaced PNG is read by %T", rows)
	}
	streamed, whole := tileMap{}, tileMap{}
	if _, err := Build(context.Background(), rows, streamed, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), ImageRows(src), whole, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(streamed) != len(whole) {
		t.Fatalf("%d tiles streamed, %d whole", len(streamed), len(whole))
	}
	for k, v := range whole {
		if !bytes.Equal(streamed[k], v) {
			t.Errorf("tile %v differs", k)
		}
	}
	jpegTiles := tileMap{}
	opaque := image.NewNRGBA(image.Rect(0, 0, 300, 300))
	for i := range opaque.Pix {
		opaque.Pix[i] = 200
		if i%4 == 3 {
			opaque.Pix[i] = 255
		}
	}
	if _, err := Build(context.Background(), ImageRows(opaque), jpegTiles, Options{Format: imageenc.JPEG}); err != nil {
		t.Fatal(err)
	}
	if d := jpegTiles[[3]int{1, 0, 0}]; len(d) < 2 || d[0] != 0xff || d[1] != 0xd8 {
		t.Errorf("an opaque tile is not JPEG")
	}
	if d := jpegTiles[[3]int{1, 1, 0}]; len(d) < 4 || string(d[1:4]) != "PNG" {
		t.Errorf("an edge tile (transparent past the edge) is not PNG")
	}
}

func TestOpenRefuses(t *testing.T) {
	for name, data := range map[string][]byte{"text": []byte("hello"), "gif": []byte("GIF89a\x01\x00\x01\x00")} {
		if _, _, err := Open(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzOpenBuild: whatever the bytes, Open and Build end with a picture's
// tiles or an error, never a panic (pictures with a declared size past
// 4 Mpx are skipped to keep the fuzzer fast; the bounds are tested apart).
func FuzzOpenBuild(f *testing.F) {
	for _, data := range samplePNGs(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width*cfg.Height > 4<<20 {
			return
		}
		rows, _, err := Open(bytes.NewReader(data))
		if err != nil {
			return
		}
		if w, h := rows.Size(); w*h > 4<<20 {
			return
		}
		tiles := tileMap{}
		info, err := Build(context.Background(), rows, tiles, Options{})
		if err == nil && info.Tiles != len(tiles) {
			t.Fatalf("%d tiles counted, %d stored", info.Tiles, len(tiles))
		}
	})
}

// TestSizeBounds: a PNG header past the bounds is refused before any
// memory is taken for its rows.
func TestSizeBounds(t *testing.T) {
	for _, size := range [][2]int{{MaxSide + 1, 1}, {1, MaxSide + 1}, {MaxSide, MaxSide}} {
		data := greyPNG(t, 8, make([]byte, 1), 1, 1, false)
		// Patch the IHDR's width and height (and its CRC).
		ihdr := data[12 : 12+4+13]
		ihdr[4], ihdr[5], ihdr[6], ihdr[7] = byte(size[0]>>24), byte(size[0]>>16), byte(size[0]>>8), byte(size[0])
		ihdr[8], ihdr[9], ihdr[10], ihdr[11] = byte(size[1]>>24), byte(size[1]>>16), byte(size[1]>>8), byte(size[1])
		c := crc32IEEE(ihdr)
		copy(data[12+4+13:], []byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)})
		if _, err := NewPNGRows(bytes.NewReader(data)); !errors.Is(err, ErrFormat) || !strings.Contains(fmt.Sprint(err), "sides are") {
			t.Errorf("%v: %v", size, err)
		}
	}
}

// TestLibraryReplaced: an image replaced on disk is read anew, and the
// one handed out before still reads its tiles.
func TestLibraryReplaced(t *testing.T) {
	dir := t.TempDir()
	lib := &Library{Dir: dir}
	defer lib.Close()
	write := func(w int) {
		if _, err := WriteMBTiles(context.Background(), ImageRows(testPicture(w, 100)), lib.Path("pic"), "pic", Meta{}, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	write(300)
	old, err := lib.Get(context.Background(), "pic")
	if err != nil || old.Width != 300 {
		t.Fatalf("%+v %v", old, err)
	}
	// A later modification time: the file is seen as changed.
	write(600)
	later := time.Now().Add(time.Second)
	os.Chtimes(lib.Path("pic"), later, later)
	cur, err := lib.Get(context.Background(), "pic")
	if err != nil || cur.Width != 600 || cur == old {
		t.Fatalf("after the replacement %+v %v", cur, err)
	}
	if _, err := old.Tile(context.Background(), 0, 0, 0); err != nil {
		t.Errorf("the image handed out before: %v", err)
	}
	if _, err := lib.Get(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown image: %v", err)
	}
}
