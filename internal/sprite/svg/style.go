package svg

import (
	"strings"
)

type paintKind uint8

const (
	paintNone paintKind = iota
	paintColor
	paintURL
	paintCurrent
)

type paint struct {
	kind     paintKind
	color    rgba
	url      string // element id for paintURL
	fallback *paint
}

// parsePaint parses a fill or stroke value.
func parsePaint(s string) (paint, bool) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "none":
		return paint{kind: paintNone}, true
	case "currentcolor":
		return paint{kind: paintCurrent}, true
	}
	if id, rest, ok := parseURLRef(s); ok {
		p := paint{kind: paintURL, url: id}
		if rest != "" {
			if fb, ok := parsePaint(rest); ok && fb.kind != paintURL {
				p.fallback = &fb
			}
		}
		return p, true
	}
	c, ok := parseColor(s)
	if !ok {
		return paint{}, false
	}
	return paint{kind: paintColor, color: c}, true
}

// parseURLRef parses url(#id) (optionally quoted) and returns the id and the remainder.
func parseURLRef(s string) (id, rest string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(strings.ToLower(s), "url(") {
		return "", "", false
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return "", "", false
	}
	ref := strings.Trim(strings.TrimSpace(s[4:end]), `"'`)
	if !strings.HasPrefix(ref, "#") || len(ref) < 2 {
		return "", "", false
	}
	return ref[1:], strings.TrimSpace(s[end+1:]), true
}

// computed holds inherited style properties.
type computed struct {
	fill, stroke  paint
	fillOpacity   float64
	strokeOpacity float64
	fillEvenOdd   bool
	clipEvenOdd   bool
	strokeP       strokeParams
	color         rgba
	visible       bool
}

func initialStyle() computed {
	return computed{
		fill:          paint{kind: paintColor, color: rgba{0, 0, 0, 1}},
		stroke:        paint{kind: paintNone},
		fillOpacity:   1,
		strokeOpacity: 1,
		strokeP:       strokeParams{width: 1, miterLimit: 4},
		color:         rgba{0, 0, 0, 1},
		visible:       true,
	}
}

// inherit computes the style of n from its parent's computed style. diag is the viewport's
// normalised diagonal, the reference for percentage stroke widths.
func inherit(parent computed, n *node, diag float64) computed {
	st := parent
	// Dash arrays are shared slices: copy on write only.
	for k, v := range n.props {
		if v == "inherit" {
			continue
		}
		switch k {
		case "fill":
			if p, ok := parsePaint(v); ok {
				st.fill = p
			}
		case "stroke":
			if p, ok := parsePaint(v); ok {
				st.stroke = p
			}
		case "fill-opacity":
			if f, ok := parseOpacity(v); ok {
				st.fillOpacity = f
			}
		case "stroke-opacity":
			if f, ok := parseOpacity(v); ok {
				st.strokeOpacity = f
			}
		case "fill-rule":
			st.fillEvenOdd = v == "evenodd"
		case "clip-rule":
			st.clipEvenOdd = v == "evenodd"
		case "stroke-width":
			if f, ok := parseLength(v, diag); ok && f >= 0 {
				st.strokeP.width = f
			}
		case "stroke-linecap":
			switch v {
			case "butt":
				st.strokeP.cap = capButt
			case "round":
				st.strokeP.cap = capRound
			case "square":
				st.strokeP.cap = capSquare
			}
		case "stroke-linejoin":
			switch v {
			case "miter", "miter-clip", "arcs":
				st.strokeP.join = joinMiter
			case "round":
				st.strokeP.join = joinRound
			case "bevel":
				st.strokeP.join = joinBevel
			}
		case "stroke-miterlimit":
			if f, err := parseFloat(v); err == nil && f >= 1 {
				st.strokeP.miterLimit = f
			}
		case "stroke-dasharray":
			st.strokeP.dash = nil
			if v != "none" {
				var dash []float64
				ok := true
				for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
					l, good := parseLength(f, diag)
					if !good || l < 0 || len(dash) > 1000 {
						ok = false
						break
					}
					dash = append(dash, l)
				}
				if ok {
					st.strokeP.dash = dash
				}
			}
		case "stroke-dashoffset":
			if f, ok := parseLength(v, diag); ok {
				st.strokeP.dashOffset = f
			}
		case "color":
			if c, ok := parseColor(v); ok {
				st.color = c
			}
		case "visibility":
			st.visible = v == "visible"
		}
	}
	return st
}

func parseOpacity(v string) (float64, bool) {
	if strings.HasSuffix(v, "%") {
		f, err := parseFloat(v[:len(v)-1])
		return clamp01(f / 100), err == nil
	}
	f, err := parseFloat(v)
	return clamp01(f), err == nil
}
