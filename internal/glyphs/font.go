package glyphs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Rendering constants shared by the common glyph tools.
const (
	emPixels = 24 // pixels per em
	buffer   = 3  // pixels of buffer around each bitmap
	radius   = 8  // distances beyond this many pixels are not measured
)

// maxFontBytes bounds the size of a font file that ParseFont accepts.
const maxFontBytes = 256 << 20

// maxFaces bounds the number of faces read from a collection.
const maxFaces = 256

// ErrBadFont reports data that is not a usable TrueType or OpenType font.
var ErrBadFont = errors.New("not a usable font")

// Font is one face of a font file, ready to render glyphs.
type Font struct {
	// Name is the face's name, "Family Style" ("Open Sans Regular").
	Name string
	// Family and Style are the names it is made of.
	Family, Style string

	sf       *sfnt.Font
	ascender int32 // pixels at 24 px, truncated like FreeType's size metrics
}

// ParseFont parses a TrueType or OpenType font, or every face of a TTC or
// OTC collection. It never panics: a panic inside the font parser is
// recovered and returned as an error wrapping ErrBadFont.
func ParseFont(data []byte) (faces []*Font, err error) {
	defer func() {
		if r := recover(); r != nil {
			faces, err = nil, fmt.Errorf("%w: parser panic: %v", ErrBadFont, r)
		}
	}()
	if len(data) > maxFontBytes {
		return nil, fmt.Errorf("%w: %d bytes is more than the limit of %d", ErrBadFont, len(data), maxFontBytes)
	}
	coll, err := sfnt.ParseCollection(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFont, err)
	}
	n := coll.NumFonts()
	if n > maxFaces {
		return nil, fmt.Errorf("%w: %d faces is more than the limit of %d", ErrBadFont, n, maxFaces)
	}
	offsets := faceOffsets(data)
	var errs []error
	for i := range n {
		sf, err := coll.Font(i)
		if err != nil {
			errs = append(errs, fmt.Errorf("face %d: %w", i, err))
			continue
		}
		var dir tableDir
		if i < len(offsets) {
			dir = readTableDir(data, offsets[i])
		}
		f, err := newFont(sf, dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("face %d: %w", i, err))
			continue
		}
		faces = append(faces, f)
	}
	if len(faces) == 0 {
		if len(errs) == 0 {
			return nil, fmt.Errorf("%w: no faces", ErrBadFont)
		}
		return nil, fmt.Errorf("%w: %w", ErrBadFont, errors.Join(errs...))
	}
	return faces, nil
}

func newFont(sf *sfnt.Font, dir tableDir) (*Font, error) {
	if sf.UnitsPerEm() <= 0 {
		return nil, errors.New("units per em is not positive")
	}
	var b sfnt.Buffer
	family := dir.name(16)
	style := dir.name(17)
	if family == "" {
		family = dir.name(1)
		style = dir.name(2)
	} else if style == "" {
		style = dir.name(2)
	}
	if family == "" {
		family, _ = sf.Name(&b, sfnt.NameIDTypographicFamily)
		if family == "" {
			family, _ = sf.Name(&b, sfnt.NameIDFamily)
		}
		if style == "" {
			style, _ = sf.Name(&b, sfnt.NameIDTypographicSubfamily)
		}
		if style == "" {
			style, _ = sf.Name(&b, sfnt.NameIDSubfamily)
		}
	}
	family, style = cleanName(family), cleanName(style)
	if family == "" {
		return nil, errors.New("the font has no family name")
	}
	name := family
	if style != "" {
		name += " " + style
	}
	asc, ok := dir.ascender()
	if !ok {
		m, err := sf.Metrics(&b, fixed.I(emPixels), font.HintingNone)
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		return &Font{Name: name, Family: family, Style: style, sf: sf, ascender: int32(m.Ascent) / 64}, nil
	}
	// The glyph tools divide FreeType's size metrics ascender by 64. FreeType
	// scales the design ascender to 26.6 fixed point and grid-fits it:
	// rounded for TrueType fonts that ask for integer scaling (head flags
	// bit 3), rounded up otherwise.
	upem := int64(sf.UnitsPerEm())
	a := int64(asc) * emPixels * 64
	if a >= 0 {
		a = (a + upem/2) / upem
	} else {
		a = (a - upem/2) / upem
	}
	if dir.roundsMetrics() {
		a = (a + 32) &^ 63
	} else {
		a = (a + 63) &^ 63
	}
	return &Font{Name: name, Family: family, Style: style, sf: sf, ascender: int32(a / 64)}, nil
}

// cleanName trims a name and drops control characters and the characters
// that cannot appear in a font stack (commas, slashes).
func cleanName(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == ',' || r == '/' || r == '\\' || r == utf8.RuneError {
			continue
		}
		sb.WriteRune(r)
	}
	return strings.Join(strings.Fields(sb.String()), " ")
}

// Has reports whether the font maps the code point r to a glyph.
func (f *Font) Has(r rune) bool {
	var b sfnt.Buffer
	x, err := f.glyphIndex(&b, r)
	return err == nil && x != 0
}

func (f *Font) glyphIndex(b *sfnt.Buffer, r rune) (x sfnt.GlyphIndex, err error) {
	defer func() {
		if p := recover(); p != nil {
			x, err = 0, fmt.Errorf("%w: cmap panic: %v", ErrBadFont, p)
		}
	}()
	return f.sf.GlyphIndex(b, r)
}

// tableDir locates the tables of one face inside the font data.
type tableDir struct {
	data   []byte
	tables map[string][2]uint32 // tag -> offset, length
}

// faceOffsets returns the offsets of the table directories of the faces of
// an sfnt file or TTC/OTC collection, or nil for other containers.
func faceOffsets(data []byte) []uint32 {
	if len(data) < 12 {
		return nil
	}
	switch binary.BigEndian.Uint32(data) {
	case 0x00010000, 0x4f54544f, 0x74727565: // 1.0, "OTTO", "true"
		return []uint32{0}
	case 0x74746366: // "ttcf"
		n := binary.BigEndian.Uint32(data[8:])
		if n > maxFaces || uint64(len(data)) < 12+4*uint64(n) {
			return nil
		}
		out := make([]uint32, n)
		for i := range out {
			out[i] = binary.BigEndian.Uint32(data[12+4*i:])
		}
		return out
	}
	return nil
}

func readTableDir(data []byte, off uint32) tableDir {
	d := tableDir{data: data, tables: map[string][2]uint32{}}
	if uint64(off)+12 > uint64(len(data)) {
		return d
	}
	n := int(binary.BigEndian.Uint16(data[off+4:]))
	base := uint64(off) + 12
	if base+16*uint64(n) > uint64(len(data)) {
		return d
	}
	for i := range n {
		e := data[base+16*uint64(i):]
		o, l := binary.BigEndian.Uint32(e[8:]), binary.BigEndian.Uint32(e[12:])
		if uint64(o)+uint64(l) > uint64(len(data)) {
			continue
		}
		d.tables[string(e[:4])] = [2]uint32{o, l}
	}
	return d
}

func (d tableDir) table(tag string) []byte {
	t, ok := d.tables[tag]
	if !ok {
		return nil
	}
	return d.data[t[0] : t[0]+t[1]]
}

// roundsMetrics reports whether the face is a TrueType (glyf) font whose
// head table asks for integer ppem scaling.
func (d tableDir) roundsMetrics() bool {
	head := d.table("head")
	if len(head) < 18 || d.table("glyf") == nil {
		return false
	}
	return binary.BigEndian.Uint16(head[16:])&8 != 0
}

// ascender returns the design ascender the way FreeType picks it: hhea's,
// or OS/2's typographic and then Windows ascender when hhea's ascender and
// descender are both zero.
func (d tableDir) ascender() (int16, bool) {
	hhea := d.table("hhea")
	if len(hhea) < 8 {
		return 0, false
	}
	asc, desc := int16(binary.BigEndian.Uint16(hhea[4:])), int16(binary.BigEndian.Uint16(hhea[6:]))
	if asc != 0 || desc != 0 {
		return asc, true
	}
	os2 := d.table("OS/2")
	if len(os2) >= 78 {
		if typo := int16(binary.BigEndian.Uint16(os2[68:])); typo != 0 || int16(binary.BigEndian.Uint16(os2[70:])) != 0 {
			return typo, true
		}
		return int16(binary.BigEndian.Uint16(os2[74:])), true
	}
	return asc, true
}

// name returns the best string for a name ID: Windows Unicode US English,
// then any Windows Unicode, then Unicode platform, then Macintosh Roman.
func (d tableDir) name(id uint16) string {
	t := d.table("name")
	if len(t) < 6 {
		return ""
	}
	count := int(binary.BigEndian.Uint16(t[2:]))
	strOff := int(binary.BigEndian.Uint16(t[4:]))
	if 6+12*count > len(t) {
		count = (len(t) - 6) / 12
	}
	best, bestRank := "", 0
	for i := range count {
		e := t[6+12*i:]
		platform, enc, lang := binary.BigEndian.Uint16(e), binary.BigEndian.Uint16(e[2:]), binary.BigEndian.Uint16(e[4:])
		if binary.BigEndian.Uint16(e[6:]) != id {
			continue
		}
		l, o := int(binary.BigEndian.Uint16(e[8:])), int(binary.BigEndian.Uint16(e[10:]))
		if strOff+o+l > len(t) {
			continue
		}
		raw := t[strOff+o : strOff+o+l]
		rank := 0
		switch {
		case platform == 3 && (enc == 1 || enc == 10) && lang == 0x409:
			rank = 4
		case platform == 3 && (enc == 1 || enc == 10):
			rank = 3
		case platform == 0:
			rank = 2
		case platform == 1 && enc == 0 && lang == 0:
			rank = 1
		default:
			continue
		}
		if rank <= bestRank {
			continue
		}
		var s string
		if platform == 1 {
			s = macRoman(raw)
		} else {
			s = utf16BE(raw)
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		best, bestRank = s, rank
	}
	return best
}

func utf16BE(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// macRoman decodes Mac Roman text; non-ASCII bytes become U+FFFD, which
// cleanName drops (names in use are ASCII).
func macRoman(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		if c < 0x80 {
			r[i] = rune(c)
		} else {
			r[i] = utf8.RuneError
		}
	}
	return string(r)
}
