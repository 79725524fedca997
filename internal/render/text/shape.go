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
	if o.Spacing != 0 && !spacingKeepsJoins(sections) {
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
		for i, r := range ToVerticalForms(rs) {
			if c := &chars[i]; r != c.r && sections[c.sec].Image == nil {
				c.r = r
				c.m, c.ok = lookup(sections[c.sec].FontStack, r)
			}
		}
	}
	ts := typesetter{sections: sections, lookup: lookup, o: o, imageScale: imageScale, glyphs: make([]Glyph, 0, len(chars))}
	advance := func(c char) float64 {
		if !c.ok {
			return 0
		}
		if sections[c.sec].Image != nil {
			return c.m.Advance*breakScale + o.Spacing
		}
		return c.m.Advance*ts.scaleOf(c.sec) + o.Spacing
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
	rows := make([]row, len(lines))
	for i, line := range lines {
		rows[i] = ts.set(trim(line))
	}
	if len(ts.glyphs) == 0 {
		return Shaping{}
	}
	return ts.arrange(rows)
}

// row is one line of a label as the typesetter set it: its glyphs are
// typesetter.glyphs[from:to], x from the line's start and y from its top.
type row struct {
	from, to int
	// reach is how far the pen went (less the spacing after the last
	// glyph); flush is where the last glyph's own advance ends, which GL
	// justifies by (they differ for an upright last glyph).
	reach, flush float64
	// height is the line's height: text-line-height times its largest
	// scale, plus how much its tallest image overhangs that scale's em.
	height float64
	// blank marks a line of nothing but white space: it takes one
	// text-line-height and counts as no line.
	blank bool
}

// typesetter sets the lines of one label.
type typesetter struct {
	sections   []Section
	lookup     Lookup
	o          Options
	imageScale float64
	glyphs     []Glyph
}

// scaleOf is a section's share in its line's scale: an image counts as 1.
func (ts *typesetter) scaleOf(sec int) float64 {
	if s := ts.sections[sec].Scale; s > 0 && ts.sections[sec].Image == nil {
		return s
	}
	return 1
}

// set appends the glyphs of one trimmed line and returns its row.
func (ts *typesetter) set(line []char) row {
	o := &ts.o
	if len(line) == 0 {
		return row{from: len(ts.glyphs), to: len(ts.glyphs), height: o.LineHeight, blank: true}
	}
	em, tallest := 0.0, 0.0 // the line's largest scale, its tallest image
	for _, c := range line {
		em = math.Max(em, ts.scaleOf(c.sec))
		if img := ts.sections[c.sec].Image; img != nil && c.ok {
			tallest = math.Max(tallest, img.Height)
		}
	}
	emHeight := em * OneEm
	// room is the height a glyph is aligned in: the line's em or its
	// tallest image, or the column's width (its em) for vertical writing.
	room := math.Max(emHeight, tallest*ts.imageScale)
	if o.Vertical {
		room = emHeight
	}
	var standing []bool
	if o.LineVertical {
		line, standing = ts.standUp(line)
	}
	r := row{from: len(ts.glyphs)}
	overhang, pen := 0.0, 0.0
	for i, c := range line {
		if !c.ok {
			continue
		}
		sec := &ts.sections[c.sec]
		k, h := ts.scaleOf(c.sec), 0.0
		if sec.Image != nil {
			k = ts.imageScale
			h = sec.Image.Height * k
			overhang = math.Max(overhang, h-emHeight)
		} else {
			h = k * OneEm
		}
		sink, box := 1.0, room // share of the spare height above the glyph
		if sec.VAlign != nil {
			sink = *sec.VAlign
		}
		upright := o.Vertical && uprightInVerticalLabel(c.r)
		if upright {
			sink = 1
		}
		if standing != nil && standing[i] {
			// Upright along a steep line: on the bottom of the line's em,
			// as in a column.
			upright, sink, box = true, 1, emHeight
		}
		y := (box - h) * sink
		if o.Vertical {
			// GL centres a glyph of another scale than the line's in the
			// column: by half the line's em beyond one em, less its own.
			y -= math.Max(0, emHeight-OneEm)/2 - (k-1)*OneEm
		}
		g := Glyph{Rune: c.r, FontStack: sec.FontStack, Scale: k, Tag: sec.Tag, X: pen, Y: y, Metrics: c.m, Image: sec.Image, Upright: upright}
		if sec.Image != nil {
			g.FontStack = ""
		}
		ts.glyphs = append(ts.glyphs, g)
		r.flush = pen + c.m.Advance*k
		if upright {
			pen += OneEm*k + o.Spacing
		} else {
			pen += c.m.Advance*k + o.Spacing
		}
	}
	r.to = len(ts.glyphs)
	if r.to > r.from {
		r.reach = pen - o.Spacing
	}
	r.height = o.LineHeight*em + overhang
	return r
}

// standUp gives the characters of a line-vertical label's line that stand
// upright their own glyphs, and says which stand (LineUprights).
func (ts *typesetter) standUp(line []char) ([]char, []bool) {
	line = append([]char(nil), line...)
	rs := make([]rune, len(line))
	for i, c := range line {
		rs[i] = c.r
	}
	rs, standing := LineUprights(rs, func(i int) bool { return ts.sections[line[i].sec].Image != nil })
	for i, r := range rs {
		if c := &line[i]; r != c.r {
			c.r = r
			c.m, c.ok = ts.lookup(ts.sections[c.sec].FontStack, r)
		}
	}
	return line, standing
}

// arrange puts the rows in the label's box and returns the shaping.
//
// The box is the block's size placed on the anchor: HAlign of its width
// (its widest line) left of the anchor, VAlign of its height (the rows'
// heights) above it, then moved by the offset. Each row then takes its own
// place in the box: across, the justified share of the room its line
// leaves; down, its top, below the rows before it.
//
// Where the lines sit in their rows follows GL: in a block of plain lines
// (the tallest exactly text-line-height), a glyph's reference line is half
// a line height less 17 below its row's top (one line of one em is then
// centred on the anchor), and the block is placed by its count of lines
// times text-line-height; in any other block a glyph's reference is its
// row's top and the block is placed by its height.
func (ts *typesetter) arrange(rows []row) Shaping {
	o := &ts.o
	width, height, tallest := 0.0, 0.0, 0.0
	sh := Shaping{Glyphs: ts.glyphs, Vertical: o.Vertical}
	for _, r := range rows {
		if r.to > r.from {
			width = math.Max(width, r.reach)
		}
		height += r.height
		if !r.blank {
			tallest = math.Max(tallest, r.height)
			sh.Lines++
		}
	}
	sh.Left = o.Offset[0] - o.HAlign*width
	sh.Top = o.Offset[1] - o.VAlign*height
	sh.Right, sh.Bottom = sh.Left+width, sh.Top+height
	drop := 0.0
	if tallest == o.LineHeight {
		placedBy := float64(len(rows)) * o.LineHeight
		drop = o.VAlign*(height-placedBy) + o.LineHeight/2 + defaultOffset
	}
	top := sh.Top + drop
	for _, r := range rows {
		left := sh.Left + o.Justify*(width-r.flush)
		for i := r.from; i < r.to; i++ {
			sh.Glyphs[i].X += left
			sh.Glyphs[i].Y += top
		}
		top += r.height
	}
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

// anchorShares holds, for each text-anchor and icon-anchor value, the
// shares of the box's width and height that lie left of and above the
// anchor point: the part of the box the anchor names.
var anchorShares = map[string][2]float64{
	"top-left": {0, 0}, "top": {0.5, 0}, "top-right": {1, 0},
	"left": {0, 0.5}, "center": {0.5, 0.5}, "right": {1, 0.5},
	"bottom-left": {0, 1}, "bottom": {0.5, 1}, "bottom-right": {1, 1},
}

// AnchorAlign returns the horizontal and vertical alignment of a
// text-anchor or icon-anchor value: the share of the box's width and height
// left of and above the anchor (an unknown value is "center").
func AnchorAlign(anchor string) (h, v float64) {
	s, ok := anchorShares[anchor]
	if !ok {
		return 0.5, 0.5
	}
	return s[0], s[1]
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
