package glyphs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

const (
	overpassRegular = "fixtures/martin/tests/fixtures/fonts/overpass-mono-regular.ttf"
	overpassLight   = "fixtures/martin/tests/fixtures/fonts/sub_dir/overpass-mono-light.otf"
	dummy3320       = "fixtures/martin/tests/fixtures/fonts2/u+3320.ttf"
	dummy1f60a      = "fixtures/martin/tests/fixtures/fonts2/u+1f60a.ttf"
	openSansDir     = "fixtures/tileserver-gl/public/resources/fonts/"
	trimFont        = "fixtures/versatiles/versatiles_pipeline/src/operations/read/from_debug/trim.ttf"
)

func readShared(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseFontNames(t *testing.T) {
	tests := []struct {
		file, name, family, style string
	}{
		{overpassRegular, "Overpass Mono Regular", "Overpass Mono", "Regular"},
		// The light face's legacy family (name ID 1) is "Overpass Mono Light"
		// with style "Regular": the typographic names (IDs 16, 17) win.
		{overpassLight, "Overpass Mono Light", "Overpass Mono", "Light"},
		{openSansDir + "OpenSans-Regular.ttf", "Open Sans Regular", "Open Sans", "Regular"},
		{openSansDir + "OpenSans-Bold.ttf", "Open Sans Bold", "Open Sans", "Bold"},
		{openSansDir + "OpenSans-Italic.ttf", "Open Sans Italic", "Open Sans", "Italic"},
		{dummy3320, "DummyTestFont Regular", "DummyTestFont", "Regular"},
		{trimFont, "Trim Regular", "Trim", "Regular"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			faces, err := ParseFont(readShared(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(faces) != 1 {
				t.Fatalf("%d faces", len(faces))
			}
			f := faces[0]
			if f.Name != tc.name || f.Family != tc.family || f.Style != tc.style {
				t.Fatalf("got %q (%q, %q), want %q (%q, %q)", f.Name, f.Family, f.Style, tc.name, tc.family, tc.style)
			}
		})
	}
	t.Run("legacy names of the light face", func(t *testing.T) {
		d := readTableDir(readShared(t, overpassLight), 0)
		if d.name(1) != "Overpass Mono Light" || d.name(2) != "Regular" {
			t.Fatalf("name IDs 1/2 = %q/%q", d.name(1), d.name(2))
		}
	})
}

// makeCollection builds a TTC file from single-font files, moving each font's
// table offsets to where its data lands in the collection.
func makeCollection(t *testing.T, fonts ...[]byte) []byte {
	t.Helper()
	header := 12 + 4*len(fonts)
	out := make([]byte, header)
	copy(out, "ttcf")
	binary.BigEndian.PutUint32(out[4:], 0x00010000)
	binary.BigEndian.PutUint32(out[8:], uint32(len(fonts)))
	for i, f := range fonts {
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		base := len(out)
		binary.BigEndian.PutUint32(out[12+4*i:], uint32(base))
		out = append(out, f...)
		n := int(binary.BigEndian.Uint16(f[4:]))
		for k := range n {
			rec := out[base+12+16*k:]
			binary.BigEndian.PutUint32(rec[8:], binary.BigEndian.Uint32(rec[8:])+uint32(base))
		}
	}
	return out
}

func TestParseFontCollection(t *testing.T) {
	regular, light := readShared(t, overpassRegular), readShared(t, overpassLight)
	faces, err := ParseFont(makeCollection(t, regular, light))
	if err != nil {
		t.Fatal(err)
	}
	if len(faces) != 2 || faces[0].Name != "Overpass Mono Regular" || faces[1].Name != "Overpass Mono Light" {
		t.Fatalf("faces %v", faces)
	}
	// Each face of the collection renders like the font on its own.
	for i, single := range [][]byte{regular, light} {
		alone, err := ParseFont(single)
		if err != nil {
			t.Fatal(err)
		}
		var s1, s2 scratch
		g1, ok1 := faces[i].renderGlyph(&s1, 'g')
		g2, ok2 := alone[0].renderGlyph(&s2, 'g')
		if !ok1 || !ok2 || !bytes.Equal(g1.Bitmap, g2.Bitmap) || g1.Top != g2.Top || g1.Advance != g2.Advance {
			t.Fatalf("face %d: collection glyph %+v differs from single-font glyph %+v", i, g1, g2)
		}
	}
}

func TestParseFontRejects(t *testing.T) {
	regular := readShared(t, overpassRegular)
	tests := map[string][]byte{
		"empty":          nil,
		"text":           []byte("this is not a font at all, just some text"),
		"truncated":      regular[:1000],
		"header only":    regular[:12],
		"bad collection": append([]byte("ttcf\x00\x01\x00\x00\xff\xff\xff\xff"), make([]byte, 64)...),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFont(data); !errors.Is(err, ErrBadFont) {
				t.Fatalf("ParseFont = %v, want ErrBadFont", err)
			}
		})
	}
}

func TestOverpassMonoGlyphCount(t *testing.T) {
	// The count martin's glyph tests rely on: Overpass Mono Regular has 192
	// glyphs among code points 0-255.
	for _, file := range []string{overpassRegular, overpassLight} {
		faces, err := ParseFont(readShared(t, file))
		if err != nil {
			t.Fatal(err)
		}
		glyphs, err := faces[0].RenderRange(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(glyphs) != 192 {
			t.Errorf("%s: %d glyphs in 0-255, want 192", file, len(glyphs))
		}
		for i, g := range glyphs {
			if i > 0 && g.ID <= glyphs[i-1].ID {
				t.Fatalf("glyphs out of order at %d", i)
			}
			if g.Width > 0 && len(g.Bitmap) != int((g.Width+6)*(g.Height+6)) {
				t.Fatalf("glyph %d: bitmap %d bytes for %dx%d", g.ID, len(g.Bitmap), g.Width, g.Height)
			}
		}
	}
}

func TestHighCodePoints(t *testing.T) {
	f3320 := loadFace(t, fixtures.Path(t, dummy3320))
	f1f60a := loadFace(t, fixtures.Path(t, dummy1f60a))
	glyphs, err := f3320.RenderRange(context.Background(), 0x3300)
	if err != nil {
		t.Fatal(err)
	}
	if len(glyphs) != 1 || glyphs[0].ID != 0x3320 || glyphs[0].Width == 0 || len(glyphs[0].Bitmap) == 0 {
		t.Fatalf("range 13056-13311 of u+3320.ttf: %+v", glyphs)
	}
	if got, _ := f3320.RenderRange(context.Background(), 0); len(got) != 0 {
		t.Fatalf("range 0-255 of u+3320.ttf has %d glyphs, want 0", len(got))
	}
	// U+1F60A lies beyond the 16-bit ranges the PBF endpoint serves, but the
	// font maps it and the glyph renders.
	if !f1f60a.Has(0x1F60A) || f1f60a.Has(0x3320) {
		t.Fatalf("u+1f60a.ttf cmap: Has(1F60A)=%v Has(3320)=%v", f1f60a.Has(0x1F60A), f1f60a.Has(0x3320))
	}
	var s scratch
	g, ok := f1f60a.renderGlyph(&s, 0x1F60A)
	if !ok || g.Width == 0 || len(g.Bitmap) != int((g.Width+6)*(g.Height+6)) {
		t.Fatalf("render U+1F60A: %+v %v", g, ok)
	}
}

func TestCheckStart(t *testing.T) {
	for _, start := range []int{0, 256, 65280} {
		if err := checkStart(start); err != nil {
			t.Errorf("checkStart(%d) = %v", start, err)
		}
	}
	for _, start := range []int{-256, 1, 255, 257, 65281, 65536} {
		if err := checkStart(start); !errors.Is(err, ErrBadRange) {
			t.Errorf("checkStart(%d) = %v, want ErrBadRange", start, err)
		}
	}
}

func FuzzParseFont(f *testing.F) {
	for _, rel := range []string{dummy3320, dummy1f60a} {
		if dir := fixtures.SharedDir(); dir != "" {
			if data, err := os.ReadFile(dir + "/" + rel); err == nil {
				f.Add(data)
				f.Add(data[:len(data)/2])
			}
		}
	}
	f.Add([]byte("ttcf\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x10"))
	f.Add([]byte("OTTO\x00\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		faces, err := ParseFont(data)
		if err != nil {
			if !errors.Is(err, ErrBadFont) {
				t.Fatalf("error %v does not wrap ErrBadFont", err)
			}
			return
		}
		var s scratch
		for _, face := range faces {
			if face.Name == "" {
				t.Fatal("face without a name")
			}
			for _, r := range []rune{0, 'A', 'g', 0x3320, 0x1F60A} {
				g, ok := face.renderGlyph(&s, r)
				if !ok {
					continue
				}
				if g.Width > maxGlyphSide || g.Height > maxGlyphSide {
					t.Fatalf("glyph %d is %dx%d", r, g.Width, g.Height)
				}
				if len(g.Bitmap) > 0 && len(g.Bitmap) != int((g.Width+6)*(g.Height+6)) {
					t.Fatalf("glyph %d: %d bytes for %dx%d", r, len(g.Bitmap), g.Width, g.Height)
				}
			}
		}
	})
}
