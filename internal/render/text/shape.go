// Package text lays out map labels the way GL renderers do: glyphs are
// placed by the advances of the SDF glyph ranges (24-pixel em, no kerning),
// lines are broken to balance their widths under text-max-width, and the
// block is justified and anchored around the label's anchor point.
//
// Every length here is in glyph pixels of the 24-pixel em (OneEm); the
// renderer scales them by text-size / 24.
package text

import (
	"math"
	"unicode"
)

// OneEm is the em size, in pixels, of the glyph ranges.
const OneEm = 24

// defaultOffset is GL's vertical offset of the first baseline in the
// shaping box: it puts the middle of a one-line label at the anchor.
const defaultOffset = -17

// Metrics are a glyph's bounds and advance, in em pixels.
type Metrics struct {
	Width, Height int
	Left, Top     int
	Advance       float64
}

// Section is a run of text with its own font stack and scale.
type Section struct {
	Text      string
	FontStack string
	Scale     float64 // 0 means 1
	// Tag is the caller's index of the section (for per-section colours).
	Tag int
}

// Lookup returns the metrics of a code point in a font stack; ok is false
// when the stack has no such glyph (it is then left out).
type Lookup func(fontStack string, r rune) (m Metrics, ok bool)

// Options are the layout properties of a label.
type Options struct {
	// MaxWidth is text-max-width in em pixels (0: no line breaking).
	MaxWidth float64
	// LineHeight is text-line-height in em pixels.
	LineHeight float64
	// Spacing is text-letter-spacing in em pixels.
	Spacing float64
	// Justify is 0 (left), 0.5 (center) or 1 (right).
	Justify float64
	// HAlign and VAlign place the block on the anchor: 0, 0.5 or 1 of its
	// width (0: the anchor is at the left) and height (0: at the top).
	HAlign, VAlign float64
	// Offset moves the block, in em pixels.
	Offset [2]float64
}

// Glyph is a placed glyph: its pen position (x of the left of the advance,
// y of the glyph box's reference line) in em pixels.
type Glyph struct {
	Rune      rune
	FontStack string
	Scale     float64
	Tag       int
	X, Y      float64
	Metrics   Metrics
}

// Shaping is a laid-out label: its glyphs and the box of the block.
type Shaping struct {
	Glyphs                   []Glyph
	Left, Top, Right, Bottom float64
	Lines                    int
}

// char is one code point of the logical text with its section and
// metrics.
type char struct {
	r   rune
	sec int
	m   Metrics
	ok  bool // the font stack has the glyph
}

// Shape lays out the sections. It returns a shaping with no glyphs when
// nothing of the text can be drawn.
func Shape(sections []Section, lookup Lookup, o Options) Shaping {
	n := 0
	for _, s := range sections {
		n += len(s.Text)
	}
	chars := make([]char, 0, n)
	if o.Spacing != 0 && !allowsLetterSpacing(sections) {
		o.Spacing = 0
	}
	for i, s := range sections {
		for _, r := range ShapeArabic(s.Text) {
			m, ok := lookup(s.FontStack, r)
			chars = append(chars, char{r: r, sec: i, m: m, ok: ok})
		}
	}
	scale := func(i int) float64 {
		if s := sections[i].Scale; s > 0 {
			return s
		}
		return 1
	}
	advance := func(c char) float64 {
		if !c.ok {
			return 0
		}
		return c.m.Advance*scale(c.sec) + o.Spacing
	}
	var lines [][]char
	if o.MaxWidth > 0 {
		start := 0
		for _, b := range LineBreaks(len(chars), func(i int) rune { return chars[i].r }, func(i int) float64 { return advance(chars[i]) }, o.MaxWidth) {
			lines = append(lines, chars[start:b])
			start = b
		}
		if start < len(chars) {
			lines = append(lines, chars[start:])
		}
	} else {
		lines = [][]char{chars}
	}
	lines = visualLines(chars, lines, func(c char, r rune) char {
		m, ok := lookup(sections[c.sec].FontStack, r)
		return char{r: r, sec: c.sec, m: m, ok: ok}
	})

	sh := Shaping{Left: o.Offset[0], Right: o.Offset[0], Top: o.Offset[1], Bottom: o.Offset[1], Glyphs: make([]Glyph, 0, len(chars))}
	y := float64(defaultOffset)
	maxLen := 0.0
	maxLineHeight := 0.0
	for _, line := range lines {
		line = trim(line)
		if len(line) == 0 {
			y += o.LineHeight
			continue
		}
		lineScale := 0.0
		for _, c := range line {
			lineScale = math.Max(lineScale, scale(c.sec))
		}
		start := len(sh.Glyphs)
		x := 0.0
		for _, c := range line {
			if !c.ok {
				continue
			}
			m := c.m
			s := scale(c.sec)
			sh.Glyphs = append(sh.Glyphs, Glyph{Rune: c.r, FontStack: sections[c.sec].FontStack, Scale: s, Tag: sections[c.sec].Tag,
				X: x, Y: y + (lineScale-s)*OneEm, Metrics: m})
			x += m.Advance*s + o.Spacing
		}
		if len(sh.Glyphs) > start {
			maxLen = math.Max(maxLen, x-o.Spacing)
			if o.Justify != 0 {
				last := sh.Glyphs[len(sh.Glyphs)-1]
				indent := (last.X + last.Metrics.Advance*last.Scale) * o.Justify
				for i := start; i < len(sh.Glyphs); i++ {
					sh.Glyphs[i].X -= indent
				}
			}
		}
		h := o.LineHeight * lineScale
		maxLineHeight = math.Max(maxLineHeight, h)
		y += h
		sh.Lines++
	}
	if len(sh.Glyphs) == 0 {
		return Shaping{}
	}
	// Place the block on the anchor.
	shiftX := (o.Justify - o.HAlign) * maxLen
	var shiftY float64
	if maxLineHeight != o.LineHeight {
		shiftY = -(y-defaultOffset)*o.VAlign - defaultOffset
	} else {
		shiftY = (-o.VAlign*float64(len(lines)) + 0.5) * o.LineHeight
	}
	for i := range sh.Glyphs {
		sh.Glyphs[i].X += shiftX + o.Offset[0]
		sh.Glyphs[i].Y += shiftY + o.Offset[1]
	}
	height := y - defaultOffset
	sh.Top += -o.VAlign * height
	sh.Bottom = sh.Top + height
	sh.Left += -o.HAlign * maxLen
	sh.Right = sh.Left + maxLen
	return sh
}

// trim drops the white space at both ends of a line.
func trim(line []char) []char {
	for len(line) > 0 && unicode.IsSpace(line[0].r) {
		line = line[1:]
	}
	for len(line) > 0 && unicode.IsSpace(line[len(line)-1].r) {
		line = line[:len(line)-1]
	}
	return line
}

// AnchorAlign returns the horizontal and vertical alignment of a
// text-anchor or icon-anchor value: the share of the box's width and height
// left of and above the anchor.
func AnchorAlign(anchor string) (h, v float64) {
	h, v = 0.5, 0.5
	switch anchor {
	case "right", "top-right", "bottom-right":
		h = 1
	case "left", "top-left", "bottom-left":
		h = 0
	}
	switch anchor {
	case "bottom", "bottom-left", "bottom-right":
		v = 1
	case "top", "top-left", "top-right":
		v = 0
	}
	return h, v
}

// JustifyOf returns the justification of a text-justify value, resolving
// "auto" from the anchor.
func JustifyOf(justify, anchor string) float64 {
	if justify == "auto" {
		h, _ := AnchorAlign(anchor)
		return h
	}
	switch justify {
	case "left":
		return 0
	case "right":
		return 1
	}
	return 0.5
}
