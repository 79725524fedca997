package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
)

const (
	nsSVG   = "http://www.w3.org/2000/svg"
	nsXLink = "http://www.w3.org/1999/xlink"
)

// Limits bound the resources spent on one document. Zero fields take the DefaultLimits value.
type Limits struct {
	MaxBytes     int // size of the SVG source
	MaxElements  int // number of elements
	MaxDepth     int // element nesting depth
	MaxPoints    int // flattened path points per render
	MaxEdges     int // rasterizer edges per render
	MaxPixels    int // width×height of a rendered image
	MaxUseDepth  int // nesting of <use> references
	MaxCSSRules  int // number of CSS rules in <style> elements
	MaxEntities  int // number of DOCTYPE entity declarations
	MaxDimension int // width or height of a rendered image
	// MaxWork bounds the CPU spent by one render: scanline crossings plus pixels
	// rasterized and composited.
	MaxWork int64
	// MaxInstances bounds the elements drawn by one render, <use> copies included.
	MaxInstances int
}

// DefaultLimits are generous for icons and keep hostile input cheap.
var DefaultLimits = Limits{
	MaxBytes:     4 << 20,
	MaxElements:  50000,
	MaxDepth:     128,
	MaxPoints:    2_000_000,
	MaxEdges:     4_000_000,
	MaxPixels:    4096 * 4096,
	MaxUseDepth:  8,
	MaxCSSRules:  5000,
	MaxEntities:  64,
	MaxDimension: 8192,
	MaxWork:      400_000_000,
	MaxInstances: 100_000,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxBytes, d.MaxBytes)
	set(&l.MaxElements, d.MaxElements)
	set(&l.MaxDepth, d.MaxDepth)
	set(&l.MaxPoints, d.MaxPoints)
	set(&l.MaxEdges, d.MaxEdges)
	set(&l.MaxPixels, d.MaxPixels)
	set(&l.MaxUseDepth, d.MaxUseDepth)
	set(&l.MaxCSSRules, d.MaxCSSRules)
	set(&l.MaxEntities, d.MaxEntities)
	set(&l.MaxDimension, d.MaxDimension)
	set(&l.MaxInstances, d.MaxInstances)
	if l.MaxWork <= 0 {
		l.MaxWork = d.MaxWork
	}
	return l
}

// Errors returned by Parse.
var (
	ErrTooLarge = errors.New("svg: document exceeds limits")
	ErrNotSVG   = errors.New("svg: root element is not <svg>")
)

type node struct {
	tag      string
	attrs    map[string]string // geometry and other attributes, by local name ("href" for xlink:href)
	props    map[string]string // style properties: presentation attributes < CSS < style attribute
	children []*node
	parent   *node
	text     strings.Builder // character data, kept for <style> only
}

func (n *node) attr(k string) string { return n.attrs[k] }

// Document is a parsed SVG document, ready to render.
type Document struct {
	root   *node
	ids    map[string]*node
	width  float64 // natural size in CSS pixels
	height float64
	lim    Limits
}

// Size returns the natural size of the document in CSS pixels: the root's width and height,
// else the viewBox size, else 100×100 (as browsers and resvg do).
func (d *Document) Size() (w, h float64) { return d.width, d.height }

// presentation lists the properties that may be given as attributes.
var presentation = map[string]bool{
	"fill": true, "fill-opacity": true, "fill-rule": true, "stroke": true, "stroke-width": true,
	"stroke-opacity": true, "stroke-linecap": true, "stroke-linejoin": true, "stroke-miterlimit": true,
	"stroke-dasharray": true, "stroke-dashoffset": true, "opacity": true, "color": true, "display": true,
	"visibility": true, "clip-path": true, "clip-rule": true, "stop-color": true, "stop-opacity": true,
	"mask": true, "mask-type": true, "vector-effect": true, "paint-order": true,
}

var entityRE = regexp.MustCompile(`<!ENTITY\s+([A-Za-z_][-A-Za-z0-9_.]*)\s+(?:"([^"]*)"|'([^']*)')\s*>`)

// Parse parses an SVG document with DefaultLimits.
func Parse(data []byte) (*Document, error) { return ParseWithLimits(data, Limits{}) }

// ParseWithLimits parses an SVG document. It never fetches external resources.
func ParseWithLimits(data []byte, lim Limits) (*Document, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(data), lim.MaxBytes)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = charsetReader
	dec.Entity = map[string]string{}
	for k, v := range xml.HTMLEntity {
		dec.Entity[k] = v
	}
	doc := &Document{ids: map[string]*node{}, lim: lim}
	var stack []*node
	skipDepth := 0 // >0 while inside a foreign-namespace element
	elements := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if doc.root != nil && len(stack) == 0 {
				break // trailing garbage after the root element
			}
			return nil, fmt.Errorf("svg: xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			ms := entityRE.FindAllSubmatch(t, -1)
			if len(dec.Entity)-len(xml.HTMLEntity)+len(ms) > lim.MaxEntities {
				return nil, fmt.Errorf("%w: too many entities", ErrTooLarge)
			}
			for _, m := range ms {
				v := string(m[2])
				if len(m[3]) > 0 {
					v = string(m[3])
				}
				if strings.ContainsAny(v, "&<") {
					continue // no nested expansion
				}
				dec.Entity[string(m[1])] = v
			}
		case xml.StartElement:
			elements++
			if elements > lim.MaxElements {
				return nil, fmt.Errorf("%w: more than %d elements", ErrTooLarge, lim.MaxElements)
			}
			if skipDepth > 0 {
				skipDepth++
				continue
			}
			if t.Name.Space != "" && t.Name.Space != nsSVG {
				if len(stack) == 0 {
					return nil, ErrNotSVG
				}
				skipDepth = 1
				continue
			}
			if len(stack) >= lim.MaxDepth {
				return nil, fmt.Errorf("%w: nesting deeper than %d", ErrTooLarge, lim.MaxDepth)
			}
			n := &node{tag: t.Name.Local, attrs: map[string]string{}, props: map[string]string{}}
			for _, a := range t.Attr {
				switch a.Name.Space {
				case "", nsSVG:
				case nsXLink:
					if a.Name.Local != "href" {
						continue
					}
				default:
					continue
				}
				n.attrs[a.Name.Local] = a.Value
				if presentation[a.Name.Local] {
					n.props[a.Name.Local] = strings.TrimSpace(a.Value)
				}
			}
			if id := n.attrs["id"]; id != "" {
				if _, dup := doc.ids[id]; !dup {
					doc.ids[id] = n
				}
			}
			if len(stack) == 0 {
				if doc.root != nil {
					return nil, errors.New("svg: more than one root element")
				}
				if n.tag != "svg" {
					return nil, ErrNotSVG
				}
				doc.root = n
			} else {
				p := stack[len(stack)-1]
				n.parent = p
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if skipDepth > 0 {
				skipDepth--
				continue
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if skipDepth == 0 && len(stack) > 0 && stack[len(stack)-1].tag == "style" {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if doc.root == nil {
		return nil, errors.New("svg: no root element")
	}
	if err := doc.applyCSS(); err != nil {
		return nil, err
	}
	doc.width, doc.height = naturalSize(doc.root)
	return doc, nil
}

func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "windows-1252", "cp1252":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		for _, c := range b {
			sb.WriteRune(rune(c))
		}
		return strings.NewReader(sb.String()), nil
	}
	return nil, fmt.Errorf("svg: unsupported encoding %q", label)
}

// naturalSize resolves the intrinsic size of the root element.
func naturalSize(root *node) (float64, float64) {
	vb, hasVB := parseViewBox(root.attr("viewBox"))
	w, wok := absLength(root.attr("width"))
	h, hok := absLength(root.attr("height"))
	switch {
	case wok && hok:
	case wok && hasVB:
		h = w * vb[3] / vb[2]
	case hok && hasVB:
		w = h * vb[2] / vb[3]
	case hasVB:
		w, h = vb[2], vb[3]
	default:
		if !wok {
			w = 100
		}
		if !hok {
			h = 100
		}
	}
	if !(w > 0) || !finite(w) {
		w = 0
	}
	if !(h > 0) || !finite(h) {
		h = 0
	}
	return w, h
}

// absLength parses a length that does not depend on a viewport (no percentages).
func absLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "%") || s == "auto" {
		return 0, false
	}
	v, ok := parseLength(s, 0)
	return v, ok && v > 0
}

// parseLength parses an SVG length into user units. pct is the reference for percentages.
func parseLength(s string, pct float64) (float64, bool) {
	s = strings.TrimSpace(s)
	v, n := scanNumber(s)
	if n == 0 {
		return 0, false
	}
	unit := strings.ToLower(strings.TrimSpace(s[n:]))
	switch unit {
	case "", "px":
	case "%":
		v = v * pct / 100
	case "pt":
		v *= 4.0 / 3
	case "pc":
		v *= 16
	case "mm":
		v *= 96 / 25.4
	case "cm":
		v *= 96 / 2.54
	case "in":
		v *= 96
	case "em", "rem":
		v *= 16
	case "ex":
		v *= 8
	default:
		return 0, false
	}
	return v, finite(v)
}

func parseViewBox(s string) ([4]float64, bool) {
	f := parseNumberList(s)
	if len(f) != 4 || !(f[2] > 0) || !(f[3] > 0) {
		return [4]float64{}, false
	}
	return [4]float64{f[0], f[1], f[2], f[3]}, true
}

func parseNumberList(s string) []float64 { return parseNumbers(s, 64) }

// parseNumbers parses a whitespace/comma separated list of at most max numbers; nil when the
// list is invalid or longer.
func parseNumbers(s string, max int) []float64 {
	var out []float64
	pp := &pathParser{s: s}
	for {
		v, ok := pp.number()
		if !ok {
			break
		}
		if len(out) >= max {
			return nil
		}
		out = append(out, v)
	}
	pp.skipSpace()
	if pp.i < len(pp.s) {
		return nil
	}
	return out
}

// parseTransform parses a transform list; an invalid list yields the identity and false.
func parseTransform(s string) (matrix, bool) {
	m := identity
	s = strings.TrimSpace(s)
	for s != "" {
		s = strings.TrimLeft(s, " \t\r\n,")
		if s == "" {
			break
		}
		open := strings.IndexByte(s, '(')
		if open < 0 {
			return identity, false
		}
		name := strings.TrimSpace(s[:open])
		end := strings.IndexByte(s[open:], ')')
		if end < 0 {
			return identity, false
		}
		args := parseNumberList(s[open+1 : open+end])
		s = s[open+end+1:]
		var t matrix
		switch {
		case name == "matrix" && len(args) == 6:
			t = matrix{args[0], args[1], args[2], args[3], args[4], args[5]}
		case name == "translate" && (len(args) == 1 || len(args) == 2):
			if len(args) == 1 {
				args = append(args, 0)
			}
			t = translate(args[0], args[1])
		case name == "scale" && (len(args) == 1 || len(args) == 2):
			if len(args) == 1 {
				args = append(args, args[0])
			}
			t = scaleM(args[0], args[1])
		case name == "rotate" && (len(args) == 1 || len(args) == 3):
			a := args[0] * math.Pi / 180
			t = matrix{a: math.Cos(a), b: math.Sin(a), c: -math.Sin(a), d: math.Cos(a)}
			if len(args) == 3 {
				t = translate(args[1], args[2]).mul(t).mul(translate(-args[1], -args[2]))
			}
		case name == "skewX" && len(args) == 1:
			t = matrix{a: 1, c: math.Tan(args[0] * math.Pi / 180), d: 1}
		case name == "skewY" && len(args) == 1:
			t = matrix{a: 1, b: math.Tan(args[0] * math.Pi / 180), d: 1}
		default:
			return identity, false
		}
		m = m.mul(t)
	}
	return m, true
}

// preserveAspectRatio
type aspect struct {
	none   bool
	slice  bool
	ax, ay float64 // alignment: 0 min, 0.5 mid, 1 max
}

func parseAspect(s string) aspect {
	a := aspect{ax: 0.5, ay: 0.5}
	f := strings.Fields(s)
	if len(f) > 0 && f[0] == "defer" {
		f = f[1:]
	}
	if len(f) == 0 {
		return a
	}
	if f[0] == "none" {
		a.none = true
		return a
	}
	if len(f[0]) == 8 {
		pos := map[string]float64{"Min": 0, "Mid": 0.5, "Max": 1}
		if v, ok := pos[f[0][1:4]]; ok {
			a.ax = v
		}
		if v, ok := pos[f[0][5:8]]; ok {
			a.ay = v
		}
	}
	if len(f) > 1 && f[1] == "slice" {
		a.slice = true
	}
	return a
}

// viewBoxTransform maps the viewBox onto the viewport (x, y, w, h).
func viewBoxTransform(vb [4]float64, a aspect, x, y, w, h float64) matrix {
	sx, sy := w/vb[2], h/vb[3]
	if a.none {
		return translate(x, y).mul(scaleM(sx, sy)).mul(translate(-vb[0], -vb[1]))
	}
	s := math.Min(sx, sy)
	if a.slice {
		s = math.Max(sx, sy)
	}
	tx := x + (w-vb[2]*s)*a.ax
	ty := y + (h-vb[3]*s)*a.ay
	return translate(tx, ty).mul(scaleM(s, s)).mul(translate(-vb[0], -vb[1]))
}
