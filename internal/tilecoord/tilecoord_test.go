package tilecoord

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		z, x, y string
		want    Coord
		ext     string
		err     error
	}{
		{"0", "0", "0", Coord{0, 0, 0}, "", nil},
		{"3", "7", "5.pbf", Coord{3, 7, 5}, "pbf", nil},
		{"14", "8800", "5374.mvt", Coord{14, 8800, 5374}, "mvt", nil},
		{"1", "1", "1.png", Coord{1, 1, 1}, "png", nil},
		{"30", "1073741823", "0", Coord{30, 1<<30 - 1, 0}, "", nil},
		{"1", "2", "0", Coord{}, "", ErrOutOfGrid},
		{"0", "0", "1", Coord{}, "", ErrOutOfGrid},
		{"31", "0", "0", Coord{}, "", ErrOutOfGrid},
		{"-1", "0", "0", Coord{}, "", ErrMalformed},
		{"a", "0", "0", Coord{}, "", ErrMalformed},
		{"1", "+1", "0", Coord{}, "", ErrMalformed},
		{"1", " 1", "0", Coord{}, "", ErrMalformed},
		{"", "0", "0", Coord{}, "", ErrMalformed},
		{"1", "0", "0.", Coord{}, "", ErrMalformed},
		{"1", "0", "0.a.b", Coord{}, "", ErrMalformed},
		{"1", "0", ".png", Coord{}, "", ErrMalformed},
		{"99999999999", "0", "0", Coord{}, "", ErrMalformed},
		{"9999999999", "0", "0", Coord{}, "", ErrOutOfGrid},
		{"1", "0x1", "0", Coord{}, "", ErrMalformed},
	}
	for _, tt := range tests {
		got, ext, err := Parse(tt.z, tt.x, tt.y)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Parse(%q,%q,%q) error = %v, want %v", tt.z, tt.x, tt.y, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || ext != tt.ext {
			t.Errorf("Parse(%q,%q,%q) = %v, %q, %v; want %v, %q", tt.z, tt.x, tt.y, got, ext, err, tt.want, tt.ext)
		}
	}
}

func TestParsePath(t *testing.T) {
	if c, ext, err := ParsePath("2/3/1.webp"); err != nil || c != (Coord{2, 3, 1}) || ext != "webp" {
		t.Errorf("ParsePath = %v %q %v", c, ext, err)
	}
	for _, p := range []string{"", "1/2", "1/2/3/4", "1//1"} {
		if _, _, err := ParsePath(p); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParsePath(%q) error = %v, want ErrMalformed", p, err)
		}
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"0/0/0", "3/7/5.pbf", "30/1073741823/0", "1/2/0", "-1/0/0", "a/b/c.d", "1/0/0."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ext, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrOutOfGrid) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if !c.Valid() {
			t.Fatalf("ParsePath(%q) accepted %v outside the grid", s, c)
		}
		back := c.String()
		if ext != "" {
			back += "." + ext
		}
		if c2, ext2, err := ParsePath(back); err != nil || c2 != c || ext2 != ext {
			t.Fatalf("round trip of %q via %q: %v %q %v", s, back, c2, ext2, err)
		}
	})
}
