package coords

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends r as encoding/json writes it (the same bytes, without
// reflection or allocations beyond b's growth) and a newline.
func (r *TransformResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"x":`...)
			b = appendJSONFloat(b, p.X)
			b = append(b, `,"y":`...)
			b = appendJSONFloat(b, p.Y)
			b = append(b, `,"z":`...)
			b = appendJSONFloat(b, p.Z)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"transformer_selection_strategy":`...)
	b = appendJSONString(b, r.Strategy)
	return append(b, "}\n"...)
}

// appendJSONFloat writes a finite float64 as encoding/json does: the
// shortest representation that reads back exactly, in exponent form below
// 1e-6 and from 1e21 on, with a one-digit negative exponent unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString writes s as a JSON string as encoding/json does (HTML
// characters and U+2028/U+2029 escaped, invalid UTF-8 as U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
