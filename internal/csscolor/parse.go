package csscolor

import (
	"math"
	"strconv"
	"strings"
)

// rgba is a straight colour with components in 0..1.
type rgba [4]float64

// Parse parses a CSS color into straight (not premultiplied) red, green,
// blue and alpha in 0..1: named colors, transparent, #rgb, #rgba,
// #rrggbb, #rrggbbaa, rgb()/rgba() and hsl()/hsla() in legacy (comma) and
// modern (space, "/ alpha") syntax, with numbers or percentages.
func Parse(s string) (r, g, b, a float64, ok bool) {
	c, ok := parse(s)
	return c[0], c[1], c[2], c[3], ok
}

func parse(s string) (rgba, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return rgba{}, false
	}
	if s == "transparent" {
		return rgba{}, true
	}
	if rgb, ok := Named[s]; ok {
		return rgba{float64(rgb>>16&0xff) / 255, float64(rgb>>8&0xff) / 255, float64(rgb&0xff) / 255, 1}, true
	}
	if s[0] == '#' {
		return parseHexColor(s[1:])
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return rgba{}, false
	}
	fn := strings.TrimSpace(s[:open])
	body := s[open+1 : len(s)-1]
	parts, legacy, hasSlash, ok := splitColorArgs(body)
	if !ok {
		return rgba{}, false
	}
	switch fn {
	case "rgb", "rgba":
		return parseRGBFunc(parts, legacy, hasSlash)
	case "hsl", "hsla":
		return parseHSLFunc(parts, legacy, hasSlash)
	}
	return rgba{}, false
}

func parseHexColor(h string) (rgba, bool) {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return rgba{}, false
		}
	}
	hexv := func(s string) float64 {
		v, _ := strconv.ParseUint(s, 16, 8)
		return float64(v)
	}
	switch len(h) {
	case 3, 4:
		var c [4]float64
		c[3] = 15
		for i := 0; i < len(h); i++ {
			c[i] = hexv(h[i : i+1])
		}
		return rgba{c[0] * 17 / 255, c[1] * 17 / 255, c[2] * 17 / 255, c[3] * 17 / 255}, true
	case 6, 8:
		var c [4]float64
		c[3] = 255
		for i := 0; i < len(h)/2; i++ {
			c[i] = hexv(h[2*i : 2*i+2])
		}
		return rgba{c[0] / 255, c[1] / 255, c[2] / 255, c[3] / 255}, true
	}
	return rgba{}, false
}

// splitColorArgs splits "a, b, c[, d]" (legacy) or "a b c[ / d]" (modern).
func splitColorArgs(body string) (parts []string, legacy, hasSlash, ok bool) {
	body = strings.TrimSpace(body)
	if strings.Contains(body, ",") {
		if strings.Contains(body, "/") {
			return nil, false, false, false
		}
		for _, p := range strings.Split(body, ",") {
			p = strings.TrimSpace(p)
			if p == "" || strings.ContainsAny(p, " \t\n") {
				return nil, false, false, false
			}
			parts = append(parts, p)
		}
		return parts, true, false, len(parts) == 3 || len(parts) == 4
	}
	main, alpha, slash := strings.Cut(body, "/")
	parts = strings.Fields(main)
	if len(parts) != 3 {
		return nil, false, false, false
	}
	if slash {
		a := strings.Fields(alpha)
		if len(a) != 1 {
			return nil, false, false, false
		}
		parts = append(parts, a[0])
	}
	return parts, false, slash, true
}

// parseCSSNumber parses a number with an optional "%" suffix.
func parseCSSNumber(s string) (v float64, pct bool, ok bool) {
	if strings.HasSuffix(s, "%") {
		pct = true
		s = s[:len(s)-1]
	}
	if s == "" {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e') {
			return 0, false, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, false
	}
	return f, pct, true
}

func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func parseAlpha(s string) (float64, bool) {
	v, pct, ok := parseCSSNumber(s)
	if !ok {
		return 0, false
	}
	if pct {
		v /= 100
	}
	return clamp(v, 0, 1), true
}

func parseRGBFunc(parts []string, legacy, _ bool) (rgba, bool) {
	var rgb [3]float64
	firstPct := false
	for i := 0; i < 3; i++ {
		v, pct, ok := parseCSSNumber(parts[i])
		if !ok {
			return rgba{}, false
		}
		if i == 0 {
			firstPct = pct
		} else if legacy && pct != firstPct {
			return rgba{}, false
		}
		if pct {
			v = v * 255 / 100
		}
		rgb[i] = clamp(v, 0, 255) / 255
	}
	a := 1.0
	if len(parts) == 4 {
		var ok bool
		if a, ok = parseAlpha(parts[3]); !ok {
			return rgba{}, false
		}
	}
	return rgba{rgb[0], rgb[1], rgb[2], a}, true
}

func parseHSLFunc(parts []string, legacy, _ bool) (rgba, bool) {
	hs := strings.TrimSuffix(parts[0], "deg")
	h, pct, ok := parseCSSNumber(hs)
	if !ok || pct {
		return rgba{}, false
	}
	sv, spct, ok1 := parseCSSNumber(parts[1])
	lv, lpct, ok2 := parseCSSNumber(parts[2])
	if !ok1 || !ok2 || (legacy && (!spct || !lpct)) {
		return rgba{}, false
	}
	sat := clamp(sv, 0, 100) / 100
	light := clamp(lv, 0, 100) / 100
	a := 1.0
	if len(parts) == 4 {
		if a, ok = parseAlpha(parts[3]); !ok {
			return rgba{}, false
		}
	}
	r, g, b := hslToRGB(h, sat, light)
	return rgba{r, g, b, a}, true
}

func hslToRGB(h, s, l float64) (float64, float64, float64) {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	f := func(n float64) float64 {
		k := math.Mod(n+h/30, 12)
		a := s * math.Min(l, 1-l)
		return l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1))
	}
	return f(0), f(8), f(4)
}
