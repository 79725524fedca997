package glyphs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseFontstack(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"Open Sans Regular", []string{"Open Sans Regular"}, true},
		{"Open Sans Regular,Arial Unicode MS Regular", []string{"Open Sans Regular", "Arial Unicode MS Regular"}, true},
		{"  Noto Sans Bold ,  Noto Sans Regular  ", []string{"Noto Sans Bold", "Noto Sans Regular"}, true},
		{"Noto Sans CJK JP Regular", []string{"Noto Sans CJK JP Regular"}, true},
		{"Ümlaut Sans", []string{"Ümlaut Sans"}, true},
		{strings.Repeat("a,", 9) + "a", strings.Split(strings.Repeat("a,", 9)+"a", ","), true},
		{"", nil, false},
		{"   ", nil, false},
		{"Open Sans,", nil, false},
		{",Open Sans", nil, false},
		{"Open Sans,,Noto", nil, false},
		{"../etc/passwd", nil, false},
		{"a..b", nil, false},
		{"fonts/Open Sans", nil, false},
		{`fonts\Open Sans`, nil, false},
		{"Open\x00Sans", nil, false},
		{"Open\nSans", nil, false},
		{"Open\u0085Sans", nil, false},
		{"bad \xff utf8", nil, false},
		{strings.Repeat("a,", 10) + "a", nil, false},
		{strings.Repeat("x", MaxFontNameLen+1), nil, false},
		{strings.Repeat("x", MaxFontNameLen), []string{strings.Repeat("x", MaxFontNameLen)}, true},
		{strings.Repeat(" ", MaxFontstackLen) + "x", nil, false},
	}
	for _, tc := range tests {
		got, err := ParseFontstack(tc.in)
		if tc.ok {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseFontstack(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, ErrBadFontstack) {
			t.Errorf("ParseFontstack(%q) = %q, %v; want ErrBadFontstack", tc.in, got, err)
		}
	}
}

func FuzzParseFontstack(f *testing.F) {
	for _, s := range []string{"Open Sans Regular,Arial Unicode MS Regular", " a , b ", "../x", "a,,b", "\x00", "Noto Sans"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ParseFontstack(s)
		if err != nil {
			if !errors.Is(err, ErrBadFontstack) {
				t.Fatalf("error %v does not wrap ErrBadFontstack", err)
			}
			return
		}
		if len(names) == 0 || len(names) > MaxStackFonts {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if n == "" || n != strings.TrimSpace(n) || len(n) > MaxFontNameLen || !utf8.ValidString(n) ||
				strings.ContainsAny(n, `/\,`) || strings.Contains(n, "..") || strings.ContainsFunc(n, unicode.IsControl) {
				t.Fatalf("accepted bad name %q from %q", n, s)
			}
		}
		// Joining the names gives a stack that parses to the same names.
		again, err := ParseFontstack(strings.Join(names, ","))
		if err != nil || !reflect.DeepEqual(again, names) {
			t.Fatalf("re-parsing %q: %q, %v", names, again, err)
		}
	})
}
