package style

import (
	"encoding/json"
	"errors"
	"fmt"
)

// decodeSpecJSON decodes a JSON document into the values decodeJSON gives
// (*Object, []any, string, json.Number, bool, nil), reading the bytes
// directly: the style specification is 300 KB, and decoding it through
// encoding/json's tokens costs most of a cold render's start. Strings
// with escapes or bytes beyond ASCII are decoded by encoding/json, so that
// they read exactly as decodeJSON reads them. The other strings share
// one copy of the document.
func decodeSpecJSON(data []byte) (any, error) {
	p := specParser{b: string(data)}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.b) {
		return nil, errors.New("unexpected data after the JSON document")
	}
	return v, nil
}

// specParser reads one JSON document.
type specParser struct {
	b   string
	pos int
	// The members and elements of the objects and arrays being read, the
	// innermost last: each object or array is made once, at its size.
	keys  []string
	elems []any
}

func (p *specParser) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// space skips white space.
func (p *specParser) space() {
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads the value at p.pos, nested depth levels deep.
func (p *specParser) value(depth int) (any, error) {
	if p.pos >= len(p.b) {
		return nil, p.errorf("unexpected end of data")
	}
	switch c := p.b[p.pos]; {
	case c == '{':
		if depth >= MaxDepth {
			return nil, fmt.Errorf("JSON nested deeper than %d levels", MaxDepth)
		}
		return p.object(depth)
	case c == '[':
		if depth >= MaxDepth {
			return nil, fmt.Errorf("JSON nested deeper than %d levels", MaxDepth)
		}
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.errorf("unexpected character %q", p.b[p.pos])
}

func (p *specParser) literal(word string) error {
	if len(p.b)-p.pos < len(word) || p.b[p.pos:p.pos+len(word)] != word {
		return p.errorf("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *specParser) object(depth int) (any, error) {
	p.pos++ // {
	base := len(p.keys)
	defer func() { p.keys, p.elems = p.keys[:base], p.elems[:base] }()
	p.space()
	if p.pos < len(p.b) && p.b[p.pos] == '}' {
		p.pos++
		return NewObject(), nil
	}
	for {
		p.space()
		if p.pos >= len(p.b) || p.b[p.pos] != '"' {
			return nil, p.errorf("object key expected")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.b) || p.b[p.pos] != ':' {
			return nil, p.errorf("':' expected")
		}
		p.pos++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.keys, p.elems = append(p.keys, k), append(p.elems, v)
		if end, err := p.next('}'); err != nil {
			return nil, err
		} else if end {
			n := len(p.keys) - base
			o := &Object{keys: make([]string, 0, n), vals: make(map[string]any, n)}
			for i, k := range p.keys[base:] {
				o.Set(k, p.elems[base+i])
			}
			return o, nil
		}
	}
}

// next moves past what follows an element of an object or array: a comma,
// or the container's closing byte (end is then true).
func (p *specParser) next(closing byte) (end bool, err error) {
	p.space()
	if p.pos >= len(p.b) {
		return false, p.errorf("unexpected end of data")
	}
	switch p.b[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("',' or '%c' expected", closing)
}

func (p *specParser) array(depth int) (any, error) {
	p.pos++ // [
	base := len(p.elems)
	defer func() { p.keys, p.elems = p.keys[:base], p.elems[:base] }()
	p.space()
	if p.pos < len(p.b) && p.b[p.pos] == ']' {
		p.pos++
		return []any{}, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.keys, p.elems = append(p.keys, ""), append(p.elems, v)
		if end, err := p.next(']'); err != nil {
			return nil, err
		} else if end {
			return append([]any{}, p.elems[base:]...), nil
		}
	}
}

// string reads a string; p.b[p.pos] is its opening quote.
func (p *specParser) string() (string, error) {
	start := p.pos
	plain := true // no escapes, nothing beyond ASCII
	for i := start + 1; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.pos = i + 1
			if plain {
				return p.b[start+1 : i], nil
			}
			var s string
			if err := json.Unmarshal([]byte(p.b[start:p.pos]), &s); err != nil {
				return "", fmt.Errorf("JSON at offset %d: %w", start, err)
			}
			return s, nil
		case c == '\\':
			plain = false
			i++ // the escaped byte cannot end the string
		case c < 0x20:
			p.pos = i
			return "", p.errorf("control character in string")
		case c >= 0x80:
			plain = false
		}
	}
	p.pos = len(p.b)
	return "", p.errorf("unterminated string")
}

// number reads a number as its text, checked against JSON's grammar.
func (p *specParser) number() (any, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.b[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.b) && p.b[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.pos < len(p.b) && p.b[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	if p.pos < len(p.b) && (p.b[p.pos] == 'e' || p.b[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.b) && (p.b[p.pos] == '+' || p.b[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	return json.Number(p.b[start:p.pos]), nil
}
