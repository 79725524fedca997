package svg

import (
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/csscolor"
)

// rgba is a non-premultiplied colour with components in [0,1].
type rgba struct{ r, g, b, a float64 }

// parseColor parses a CSS colour value: #rgb, #rgba, #rrggbb, #rrggbbaa, rgb(), rgba(),
// hsl(), hsla(), named colours and "transparent".
func parseColor(s string) (rgba, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return rgba{}, false
	}
	if s[0] == '#' {
		h := s[1:]
		var v [8]uint8
		for i := 0; i < len(h); i++ {
			c, ok := hexVal(h[i])
			if !ok {
				return rgba{}, false
			}
			if i < 8 {
				v[i] = c
			}
		}
		switch len(h) {
		case 3, 4:
			c := rgba{float64(v[0]*17) / 255, float64(v[1]*17) / 255, float64(v[2]*17) / 255, 1}
			if len(h) == 4 {
				c.a = float64(v[3]*17) / 255
			}
			return c, true
		case 6, 8:
			c := rgba{float64(v[0]<<4|v[1]) / 255, float64(v[2]<<4|v[3]) / 255, float64(v[4]<<4|v[5]) / 255, 1}
			if len(h) == 8 {
				c.a = float64(v[6]<<4|v[7]) / 255
			}
			return c, true
		}
		return rgba{}, false
	}
	lower := strings.ToLower(s)
	if i := strings.IndexByte(lower, '('); i > 0 && strings.HasSuffix(lower, ")") {
		fn := strings.TrimSpace(lower[:i])
		args := splitArgs(lower[i+1 : len(lower)-1])
		switch fn {
		case "rgb", "rgba":
			if len(args) != 3 && len(args) != 4 {
				return rgba{}, false
			}
			var c rgba
			comp := []*float64{&c.r, &c.g, &c.b}
			for k := 0; k < 3; k++ {
				a := args[k]
				if strings.HasSuffix(a, "%") {
					f, err := parseFloat(a[:len(a)-1])
					if err != nil {
						return rgba{}, false
					}
					*comp[k] = clamp01(f / 100)
				} else {
					f, err := parseFloat(a)
					if err != nil {
						return rgba{}, false
					}
					*comp[k] = clamp01(f / 255)
				}
			}
			c.a = 1
			if len(args) == 4 {
				a, ok := parseAlpha(args[3])
				if !ok {
					return rgba{}, false
				}
				c.a = a
			}
			return c, true
		case "hsl", "hsla":
			if len(args) != 3 && len(args) != 4 {
				return rgba{}, false
			}
			h, err1 := parseFloat(strings.TrimSuffix(args[0], "deg"))
			sat, err2 := parseFloat(strings.TrimSuffix(args[1], "%"))
			l, err3 := parseFloat(strings.TrimSuffix(args[2], "%"))
			if err1 != nil || err2 != nil || err3 != nil {
				return rgba{}, false
			}
			c := hslToRGB(h, clamp01(sat/100), clamp01(l/100))
			if len(args) == 4 {
				a, ok := parseAlpha(args[3])
				if !ok {
					return rgba{}, false
				}
				c.a = a
			}
			return c, true
		}
		return rgba{}, false
	}
	if lower == "transparent" {
		return rgba{}, true
	}
	if v, ok := csscolor.Named[lower]; ok {
		return rgba{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}, true
	}
	return rgba{}, false
}

func splitArgs(s string) []string {
	s = strings.ReplaceAll(s, "/", ",")
	var out []string
	if strings.Contains(s, ",") {
		for _, a := range strings.Split(s, ",") {
			out = append(out, strings.TrimSpace(a))
		}
		return out
	}
	return strings.Fields(s)
}

func parseAlpha(s string) (float64, bool) {
	if strings.HasSuffix(s, "%") {
		f, err := parseFloat(s[:len(s)-1])
		return clamp01(f / 100), err == nil
	}
	f, err := parseFloat(s)
	return clamp01(f), err == nil
}

func hslToRGB(h, s, l float64) rgba {
	h = h - 360*float64(int(h/360))
	if h < 0 {
		h += 360
	}
	h /= 360
	var m2 float64
	if l <= 0.5 {
		m2 = l * (s + 1)
	} else {
		m2 = l + s - l*s
	}
	m1 := l*2 - m2
	hue := func(t float64) float64 {
		if t < 0 {
			t++
		}
		if t > 1 {
			t--
		}
		switch {
		case t*6 < 1:
			return m1 + (m2-m1)*t*6
		case t*2 < 1:
			return m2
		case t*3 < 2:
			return m1 + (m2-m1)*(2.0/3-t)*6
		}
		return m1
	}
	return rgba{hue(h + 1.0/3), hue(h), hue(h - 1.0/3), 1}
}

func hexVal(c byte) (uint8, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func clamp01(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	if f > 1 {
		return 1
	}
	return f
}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if !finite(f) {
		return 0, strconv.ErrRange
	}
	return f, nil
}
