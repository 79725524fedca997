package glyphs

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Font stack limits.
const (
	MaxStackFonts   = 10   // fonts in one stack
	MaxFontNameLen  = 256  // bytes in one font name
	MaxFontstackLen = 2048 // bytes in a whole stack
)

// ErrBadFontstack reports a font stack that ParseFontstack rejects.
var ErrBadFontstack = errors.New("bad font stack")

// ParseFontstack splits a font stack ("Open Sans Regular,Arial Unicode MS
// Regular", already URL-decoded) into font names. It trims spaces around
// each name and rejects empty names, invalid UTF-8, control characters, path
// separators, "..", more than MaxStackFonts names and over-long input.
func ParseFontstack(s string) ([]string, error) {
	if len(s) > MaxFontstackLen {
		return nil, fmt.Errorf("%w: %d bytes is more than %d", ErrBadFontstack, len(s), MaxFontstackLen)
	}
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrBadFontstack)
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxStackFonts {
		return nil, fmt.Errorf("%w: %d fonts is more than %d", ErrBadFontstack, len(parts), MaxStackFonts)
	}
	names := make([]string, 0, len(parts))
	for i, p := range parts {
		name := strings.TrimSpace(p)
		switch {
		case name == "":
			return nil, fmt.Errorf("%w: font %d has an empty name", ErrBadFontstack, i+1)
		case len(name) > MaxFontNameLen:
			return nil, fmt.Errorf("%w: font %d is longer than %d bytes", ErrBadFontstack, i+1, MaxFontNameLen)
		case strings.ContainsAny(name, `/\`):
			return nil, fmt.Errorf("%w: font %q contains a path separator", ErrBadFontstack, name)
		case strings.Contains(name, ".."):
			return nil, fmt.Errorf("%w: font %q contains \"..\"", ErrBadFontstack, name)
		case strings.ContainsFunc(name, unicode.IsControl):
			return nil, fmt.Errorf("%w: font %q contains a control character", ErrBadFontstack, name)
		}
		names = append(names, name)
	}
	return names, nil
}

// ParseRange parses the "{start}-{end}" part of a glyph URL (without
// ".pbf") and returns start. It accepts only plain decimal numbers, start a
// multiple of 256 in 0..65280 and end = start+255; anything else is an error
// wrapping ErrBadRange.
func ParseRange(s string) (int, error) {
	a, b, ok := strings.Cut(s, "-")
	start, okA := parseDecimal(a)
	end, okB := parseDecimal(b)
	if !ok || !okA || !okB {
		return 0, fmt.Errorf("%w: %q is not {start}-{end}", ErrBadRange, s)
	}
	if err := checkStart(start); err != nil {
		return 0, err
	}
	if end != start+255 {
		return 0, fmt.Errorf("%w: %q does not end at start+255", ErrBadRange, s)
	}
	return start, nil
}

// parseDecimal parses 1 to 5 ASCII digits.
func parseDecimal(s string) (int, bool) {
	if len(s) == 0 || len(s) > 5 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
