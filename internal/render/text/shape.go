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

// Section is a run of text with its own font stack and scale, or one
// image set in the line (Image not nil; Text, FontStack and Scale are then
// not used).
type Section struct {
	Text      string
	FontStack string
	Scale     float64 // 0 means 1
	// VAlign places the section in a line taller than it (a larger scale
	// or a tall image): 1 (the default, "bottom") puts its bottom on the
	// line's bottom, 0.5 ("center") centres it, 0 ("top") puts it at the
	// top. Use VAlignOf for a format section's vertical-align.
	VAlign *float64
	// Image is an image shaped as one glyph of the line, or nil.
	Image *Image
	// Tag is the caller's index of the section (for per-section colours).
	Tag int
}

// Image is an image inside a label (a format section's image): its size as
// drawn, in CSS pixels (image pixels over the image's pixel ratio). An
// image of no size is missing from the sprite: it takes no room and draws
// nothing, as GL leaves out an image it does not have.
type Image struct {
	Name          string
	Width, Height float64
}

// VAlignOf returns the Section.VAlign of a format section's
// vertical-align value ("bottom" and unknown values: 1).
func VAlignOf(v string) float64 {
	switch v {
	case "top":
		return 0
	case "center":
		return 0.5
	}
	return 1
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
	// ImageScale scales the images in the text: GL shapes an image at
	// OneEm / text-size (text-size at the tile's zoom), so that the label,
	// drawn at text-size / OneEm, shows it at its own size. 0 means 1.
	ImageScale float64
	// BreakImageScale is the image scale line breaking counts with (GL
	// takes text-size one zoom above the tile's there); 0 means ImageScale.
	BreakImageScale float64
	// Vertical lays the label out for vertical writing, as GL does: the
	// punctuation takes its vertical forms, every glyph but white space
	// and complex scripts is upright and advances one em (times its
	// scale), and the shaping is the horizontal layout of the column, which
	// the renderer turns 90 degrees clockwise (see Glyph.Upright).
	Vertical bool
	// LineVertical shapes the vertical alternative of a label along a
	// line, which GL draws where the line runs steeper than 45 degrees:
	// the punctuation takes its vertical forms, the characters LineUprights
	// picks stand upright (Glyph.Upright) and advance one em (times their
	// scale), the others keep their advance and lie along the line.
	LineVertical bool
}

// Glyph is a placed glyph: its pen position (x of the left of the advance,
// y of the glyph box's reference line) in em pixels. An image's glyph has
// Image set, the image's width as its advance, and Scale the scale its
// size is multiplied by (Options.ImageScale); its top is 3*Scale below Y
// (GL gives it the glyph ranges' 3-pixel border as its top bearing).
type Glyph struct {
	Rune      rune
	FontStack string
	Scale     float64
	Tag       int
	X, Y      float64
	Metrics   Metrics
	Image     *Image
	// Upright marks a glyph of a vertical shaping that stands upright:
	// the label is turned 90 degrees clockwise, and such a glyph is drawn
	// unturned with its box moved by VerticalShift.
	Upright bool
}

// VerticalShift is how far (em pixels) an upright glyph of a vertical
// shaping is drawn from where its box lies in the unturned layout (its left
// less half its advance, its top as a horizontal glyph's), in the turned
// label's frame: GL turns the glyph back about the middle of the left of
// its em box and centres it on the column, which comes to the glyph's pen
// position along the column less 7 down and its line's y less 17 across.
func (g Glyph) VerticalShift() (dx, dy float64) {
	return -g.Y + defaultOffset, g.X - 7
}

// Shaping is a laid-out label: its glyphs and the box of the block.
type Shaping struct {
	Glyphs                   []Glyph
	Left, Top, Right, Bottom float64
	Lines                    int
	// Vertical is set for a vertical shaping: the box and the glyphs are
	// those of the label before it is turned 90 degrees clockwise.
	Vertical bool
	// Anchor says, for a label shaped for a variable anchor, how the
	// renderer puts it at its point (zero otherwise). Shape leaves it zero.
	Anchor VariableAnchor
}

// VariableAnchor is how a label shaped for a variable anchor is put at its
// point.
type VariableAnchor struct {
	// Away holds the signs (x, y: -1, 0 or 1) of the direction from the
	// point to the text. The label is moved by its padding that way: it is
	// the label's padded box that is put at the point.
	Away [2]float64
	// Centred is set for a rotated label, shaped about its centre: the
	// side of its turned box that Away names is put at the point, then
	// the label is moved by Offset (em pixels, not turned).
	Centred bool
	Offset  [2]float64
}

// char is one code point of the logical text with its section and
// metrics.
type char struct {
	r   rune
	sec int
	m   Metrics
	ok  bool // the font stack has the glyph (the sprite the image)
}

// imageRune is the code point of a label's first image: GL stands each
// image of a label for a code point of the private use area, from here on.
const imageRune = 0xE000

// Shape lays out the sections. It returns a shaping with no glyphs when
// nothing of the text can be drawn.
//
// An image section is one glyph of its line, as GL shapes it: its advance
// is its width times Options.ImageScale, a line may break after it, and
// letter spacing follows it. It counts as a section of scale 1 for the
// line's scale; a line holding an image taller than the line's em (at that
// scale) is as much taller, and each section sits in the line's height by
// its VAlign.
func Shape(sections []Section, lookup Lookup, o Options) Shaping {
	n := 0
	for _, s := range sections {
		n += len(s.Text) + 1
	}
	chars := make([]char, 0, n)
	if o.Spacing != 0 && !allowsLetterSpacing(sections) {
		o.Spacing = 0
	}
	imageScale := o.ImageScale
	if imageScale <= 0 {
		imageScale = 1
	}
	breakScale := o.BreakImageScale
	if breakScale <= 0 {
		breakScale = imageScale
	}
	nextImage := rune(imageRune)
	for i, s := range sections {
		if img := s.Image; img != nil {
			// GL leaves out an image with no name, and those past the
			// private use area's 6,400 code points.
			if img.Name == "" || nextImage > 0xF8FF {
				continue
			}
			chars = append(chars, char{r: nextImage, sec: i, m: Metrics{Advance: img.Width}, ok: img.Width > 0 && img.Height > 0})
			nextImage++
			continue
		}
		for _, r := range ShapeArabic(s.Text) {
			m, ok := lookup(s.FontStack, r)
			chars = append(chars, char{r: r, sec: i, m: m, ok: ok})
		}
	}
	if o.Vertical || o.LineVertical {
		// GL turns the punctuation of the whole text, across sections.
		rs := make([]rune, len(chars))
		for i, c := range chars {
			rs[i] = c.r
		}
		for i, r := range VerticalizePunctuation(rs) {
			if c := &chars[i]; r != c.r && sections[c.sec].Image == nil {
				c.r = r
				c.m, c.ok = lookup(sections[c.sec].FontStack, r)
			}
		}
	}
	// scale is a section's share in its line's scale: an image counts as 1.
	scale := func(i int) float64 {
		if s := sections[i].Scale; s > 0 && sections[i].Image == nil {
			return s
		}
		return 1
	}
	// glyphScale is what a glyph's metrics are multiplied by.
	glyphScale := func(c char) float64 {
		if sections[c.sec].Image != nil {
			return imageScale
		}
		return scale(c.sec)
	}
	advance := func(c char) float64 {
		if !c.ok {
			return 0
		}
		if sections[c.sec].Image != nil {
			return c.m.Advance*breakScale + o.Spacing
		}
		return c.m.Advance*scale(c.sec) + o.Spacing
	}
	var lines [][]char
	if o.MaxWidth > 0 {
		start := 0
		breaks := LineBreaksWith(len(chars), func(i int) rune { return chars[i].r }, func(i int) float64 { return advance(chars[i]) }, o.MaxWidth,
			func(i int) bool { return sections[chars[i].sec].Image != nil })
		for _, b := range breaks {
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
		lineScale, imageHeight := 0.0, 0.0
		for _, c := range line {
			lineScale = math.Max(lineScale, scale(c.sec))
			if img := sections[c.sec].Image; img != nil && c.ok {
				imageHeight = math.Max(imageHeight, img.Height)
			}
		}
		// The height of the line's content, and how much taller than the
		// line's em its tallest image is.
		content := math.Max(lineScale*OneEm, imageHeight*imageScale)
		if o.Vertical {
			// An upright glyph sits on the bottom of the column's width
			// (GL's vertical line content width, the line's largest em).
			content = lineScale * OneEm
		}
		imageOffset := 0.0
		start := len(sh.Glyphs)
		x := 0.0
		var lineUp []bool
		if o.LineVertical {
			line = append([]char(nil), line...)
			rs := make([]rune, len(line))
			for i, c := range line {
				rs[i] = c.r
			}
			rs, lineUp = LineUprights(rs, func(i int) bool { return sections[line[i].sec].Image != nil })
			for i, r := range rs {
				if c := &line[i]; r != c.r {
					c.r = r
					c.m, c.ok = lookup(sections[c.sec].FontStack, r)
				}
			}
		}
		for i, c := range line {
			if !c.ok {
				continue
			}
			sec := &sections[c.sec]
			s := glyphScale(c)
			h := s * OneEm
			if sec.Image != nil {
				h = sec.Image.Height * s
				imageOffset = math.Max(imageOffset, h-OneEm*lineScale)
			}
			align := 1.0
			if sec.VAlign != nil {
				align = *sec.VAlign
			}
			upright := o.Vertical && uprightInVerticalLabel(c.r)
			glyphContent := content
			if upright {
				align = 1
			}
			if lineUp != nil && lineUp[i] {
				// Upright along a steep line: it sits on the bottom of the
				// line's em, as in a column.
				upright, align, glyphContent = true, 1, lineScale*OneEm
			}
			g := Glyph{Rune: c.r, FontStack: sec.FontStack, Scale: s, Tag: sec.Tag, X: x, Y: y + (glyphContent-h)*align, Metrics: c.m, Image: sec.Image, Upright: upright}
			if sec.Image != nil {
				g.FontStack = ""
			}
			if o.Vertical {
				// GL centres a glyph of another scale than the line's in
				// the column: it moves it by half the line's offset less
				// how much larger than an em it is.
				g.Y -= math.Max(0, (lineScale-1)*OneEm)/2 - (s-1)*OneEm
			}
			sh.Glyphs = append(sh.Glyphs, g)
			if upright {
				x += OneEm*s + o.Spacing
			} else {
				x += c.m.Advance*s + o.Spacing
			}
		}
		if len(sh.Glyphs) > start {
			maxLen = math.Max(maxLen, x-o.Spacing)
			if o.Justify != 0 {
				// GL justifies by the last glyph's own advance, upright or
				// not.
				last := sh.Glyphs[len(sh.Glyphs)-1]
				indent := (last.X + last.Metrics.Advance*last.Scale) * o.Justify
				for i := start; i < len(sh.Glyphs); i++ {
					sh.Glyphs[i].X -= indent
				}
			}
		}
		h := o.LineHeight*lineScale + imageOffset
		maxLineHeight = math.Max(maxLineHeight, h)
		y += h
		sh.Lines++
	}
	if len(sh.Glyphs) == 0 {
		return Shaping{}
	}
	sh.Vertical = o.Vertical
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
