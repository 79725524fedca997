package spritesheet

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Entry is an icon's entry in a sheet's JSON index.
type Entry struct {
	X, Y, Width, Height int
	PixelRatio          float64 `json:"pixelRatio"`
	SDF                 bool    `json:"sdf"`
}

// ParseIndex parses a sheet's JSON index (an object of entries by icon
// name) as encoding/json unmarshals it into a map[string]Entry. The common
// index, of plain names and numbers, is read here without reflection;
// anything else (escapes, a value of another type, a null, a syntax error)
// is left to encoding/json, so that the result and error are its own.
func ParseIndex(data []byte) (map[string]Entry, error) {
	if m, ok := parseIndex(data); ok {
		return m, nil
	}
	var m map[string]Entry
	err := json.Unmarshal(data, &m)
	return m, err
}

// indexParser reads an index; any failure makes parseIndex report false.
type indexParser struct {
	b []byte
	i int
}

// maxSkipDepth bounds the nesting of the values of fields skipped.
const maxSkipDepth = 100

func parseIndex(data []byte) (map[string]Entry, bool) {
	p := &indexParser{b: data}
	if !p.byte('{') {
		return nil, false
	}
	m := map[string]Entry{}
	if p.byte('}') {
		return m, p.end()
	}
	for {
		key, ok := p.str()
		if !ok || !utf8.Valid(key) || !p.byte(':') {
			return nil, false
		}
		e, ok := p.entry()
		if !ok {
			return nil, false
		}
		m[string(key)] = e
		if p.byte(',') {
			continue
		}
		if p.byte('}') {
			return m, p.end()
		}
		return nil, false
	}
}

// entry reads one entry's object.
func (p *indexParser) entry() (Entry, bool) {
	var e Entry
	if !p.byte('{') {
		return e, false
	}
	if p.byte('}') {
		return e, true
	}
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return e, false
		}
		var field *int
		switch {
		case foldEqual(key, "x"):
			field = &e.X
		case foldEqual(key, "y"):
			field = &e.Y
		case foldEqual(key, "width"):
			field = &e.Width
		case foldEqual(key, "height"):
			field = &e.Height
		case foldEqual(key, "pixelratio"):
			num, ok := p.number()
			if !ok {
				return e, false
			}
			f, err := strconv.ParseFloat(string(num), 64)
			if err != nil {
				return e, false
			}
			e.PixelRatio = f
		case foldEqual(key, "sdf"):
			p.space()
			switch {
			case p.literal("true"):
				e.SDF = true
			case p.literal("false"):
				e.SDF = false
			default:
				return e, false
			}
		default:
			for _, c := range key {
				if c >= utf8.RuneSelf {
					return e, false // encoding/json folds some non-ASCII letters to ASCII ones
				}
			}
			if !p.skip(0) {
				return e, false
			}
		}
		if field != nil {
			num, ok := p.number()
			if !ok {
				return e, false
			}
			n, err := strconv.ParseInt(string(num), 10, 0)
			if err != nil {
				return e, false // a fraction or exponent is encoding/json's error
			}
			*field = int(n)
		}
		if p.byte(',') {
			continue
		}
		return e, p.byte('}')
	}
}

// foldEqual reports whether key is name (lower-case ASCII) in any case.
func foldEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if c|0x20 != name[i] {
			return false
		}
	}
	return true
}

// space skips JSON white space.
func (p *indexParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte reads c after any white space.
func (p *indexParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (p *indexParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

func (p *indexParser) literal(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// str reads a string with no escapes and returns its bytes.
func (p *indexParser) str() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	for j := p.i; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[p.i:j]
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number and returns its text.
func (p *indexParser) number() ([]byte, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return p.b[start:p.i], true
}

func (p *indexParser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// skip reads any JSON value, checking its syntax.
func (p *indexParser) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	p.space()
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		return p.skipString()
	case '{':
		p.i++
		if p.byte('}') {
			return true
		}
		for {
			p.space()
			if !p.skipString() || !p.byte(':') || !p.skip(depth+1) {
				return false
			}
			if !p.byte(',') {
				return p.byte('}')
			}
		}
	case '[':
		p.i++
		if p.byte(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if !p.byte(',') {
				return p.byte(']')
			}
		}
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	_, ok := p.number()
	return ok
}

// skipString reads a string, escapes and all.
func (p *indexParser) skipString() bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(p.b) {
				return false
			}
			switch p.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p.b) {
					return false
				}
				for _, h := range p.b[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h|0x20 && h|0x20 <= 'f') {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}
