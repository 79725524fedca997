// Package jsonappend appends JSON values to byte slices exactly as
// encoding/json writes them (its float format, HTML-safe string escaping),
// for answers written by hand without reflection. Tests hold the bytes equal
// to encoding/json's.
package jsonappend

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Float appends a finite float64 as encoding/json does: the
// shortest representation that reads back exactly, in exponent form below
// 1e-6 and from 1e21 on, with a one-digit negative exponent unpadded.
func Float(b []byte, f float64) []byte {
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

// String appends s as a JSON string as encoding/json does (HTML
// characters and U+2028/U+2029 escaped, invalid UTF-8 as U+FFFD), copying
// runs of characters that need no escape at once.
func String(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonSafe tells the ASCII bytes written as they are in a JSON string.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// Floats appends a JSON array of numbers (null for a nil slice, as
// encoding/json writes it).
func Floats(b []byte, fs []float64) []byte { return Array(b, fs, Float) }

// Array appends xs as a JSON array, each element by add; a nil slice is
// null, as encoding/json writes it.
func Array[T any](b []byte, xs []T, add func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	return Elements(b, xs, add)
}

// Elements appends xs as a JSON array, each element by add; a nil slice
// is an empty array.
func Elements[T any](b []byte, xs []T, add func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = add(b, x)
	}
	return append(b, ']')
}
