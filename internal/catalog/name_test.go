package catalog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNameFromFile(t *testing.T) {
	tests := map[string]string{
		"world.mbtiles":          "world",
		"my tiles.v2.pmtiles":    "my tiles.v2",
		".hidden.mbtiles":        "hidden",
		"a?b#c%d.mbtiles":        "a-b-c-d",
		"...mbtiles":             "tileset",
		"Zürich 2024.mbtiles":    "Zürich 2024",
		"ctl\x01char.mbtiles":    "ctl-char",
		"back\\slash.pmtiles":    "back-slash",
		strings.Repeat("é", 200): strings.Repeat("é", 64),
	}
	for in, want := range tests {
		if got := nameFromFile(in); got != want {
			t.Errorf("nameFromFile(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzNameFromFile(f *testing.F) {
	for _, s := range []string{"world.mbtiles", ".x.pmtiles", "a/b.mbtiles", "\xff\xfe.mbtiles", strings.Repeat("ab", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		name := nameFromFile(file)
		if name == "" || len(name) > MaxNameLen || strings.ContainsAny(name, "/\\?#%") || strings.HasPrefix(name, ".") {
			t.Fatalf("nameFromFile(%q) = %q", file, name)
		}
		if utf8.ValidString(file) && !utf8.ValidString(name) {
			t.Fatalf("nameFromFile(%q) = %q: invalid UTF-8", file, name)
		}
		if err := ValidName(name); err == nil && strings.ContainsAny(name, "/\\") {
			t.Fatalf("ValidName accepted %q", name)
		}
	})
}

func TestIsTemporary(t *testing.T) {
	for name, want := range map[string]bool{
		"world.mbtiles":                false,
		".world.mbtiles":               true,
		".world.mbtiles.tmp-123456":    true,
		"world.tmp-42.mbtiles":         true,
		"world.mbtiles.TMP":            true,
		"world.pmtiles.part":           true,
		"tmp.mbtiles":                  false,
		"temperatures-tmp.pmtiles":     false,
		"my.tmpl.mbtiles":              false,
		"x.pmtiles":                    false,
		".pmtiles-spool-99":            true,
		"contemporary-tmp-art.pmtiles": false,
	} {
		if got := IsTemporary(name); got != want {
			t.Errorf("IsTemporary(%q) = %v, want %v", name, got, want)
		}
	}
}
