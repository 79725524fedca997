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

func TestParseRange(t *testing.T) {
	good := map[string]int{"0-255": 0, "256-511": 256, "65280-65535": 65280, "00256-00511": 256}
	for in, want := range good {
		if got, err := ParseRange(in); err != nil || got != want {
			t.Errorf("ParseRange(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0-", "-255", "0-256", "1-256", "255-510", "65536-65791", "+0-255", "0-255.pbf", " 0-255", "0--255", "0-2a5", "100000-100255", "0-255-511"} {
		if got, err := ParseRange(in); !errors.Is(err, ErrBadRange) {
			t.Errorf("ParseRange(%q) = %d, %v; want ErrBadRange", in, got, err)
		}
	}
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"0-255", "256-511", "65280-65535", "1-256", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, err := ParseRange(s)
		if err != nil {
			if !errors.Is(err, ErrBadRange) {
				t.Fatalf("error %v does not wrap ErrBadRange", err)
			}
			return
		}
		if checkStart(start) != nil {
			t.Fatalf("accepted start %d", start)
		}
		if again, err := ParseRange(rangeName(start)); err != nil || again != start {
			t.Fatalf("canonical form of %q: %d, %v", s, again, err)
		}
	})
}
