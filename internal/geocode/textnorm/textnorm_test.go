package textnorm

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"São Paulo", "sao paulo"},
		{"  Ikere-Ekiti ", "ikere ekiti"},
		{"Ra’s Bayrūt", "ras bayrut"},
		{"Straße", "strasse"},
		{"Łódź", "lodz"},
		{"Eskişehir", "eskisehir"},
		{"ＴＯＫＹＯ", "tokyo"},
		{"Москва", "москва"},
		{"天津市", "天津市"},
		{"San Juan del Río, MX", "san juan del rio mx"},
		{"...", ""},
		{"Ærø", "aero"},
		{"वूहान", "वूहान"}, // Devanagari vowel signs are kept
		{"Ἀθῆναι", "αθηναι"},
		{"Йошкар-Ола", "иошкар ола"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	if got := Tokens("Fort  Lauderdale!"); !slices.Equal(got, []string{"fort", "lauderdale"}) {
		t.Errorf("Tokens = %q", got)
	}
	if got := Tokens(" - "); got != nil {
		t.Errorf("Tokens of separators = %q, want nil", got)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		max  int
		want int
	}{
		{"vienna", "vienna", 2, 0},
		{"vienaa", "vienna", 2, 1},
		{"orebnurg", "orenburg", 2, 1}, // transposition
		{"guiyag", "guiyang", 2, 1},
		{"fushhun", "fushun", 2, 1},
		{"kitten", "sittin", 2, 2},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 1, 2}, // capped at max+1
		{"abc", "abcdef", 2, 3},
		{"", "ab", 2, 2},
		{"ñandú", "nandu", 2, 2},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b, tt.max); got != tt.want {
			t.Errorf("Distance(%q,%q,%d) = %d, want %d", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

func TestDeletions(t *testing.T) {
	var got []string
	Deletions("aéb", func(s string) { got = append(got, s) })
	if !slices.Equal(got, []string{"éb", "ab", "aé"}) {
		t.Errorf("Deletions = %q", got)
	}
}

func TestMaxEdits(t *testing.T) {
	for n, want := range map[int]int{0: 0, 3: 0, 4: 1, 7: 1, 8: 2, 20: 2} {
		if got := MaxEdits(n); got != want {
			t.Errorf("MaxEdits(%d) = %d, want %d", n, got, want)
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"São Paulo", "Ra’s", "\xff\xfe", "ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := Fold(s)
		if b := Fold(a); b != a {
			t.Fatalf("Fold not idempotent: %q -> %q -> %q", s, a, b)
		}
	})
}

func TestTransliterate(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{Fold("Амстердам"), "amsterdam", true},
		{Fold("Хабаровск"), "khabarovsk", true},
		{Fold("Йошкар-Ола"), "ioshkar ola", true},
		{Fold("Αθήνα"), "athina", true},
		{"paris", "paris", false},
		{"東京", "東京", false},
	}
	for _, tt := range tests {
		got, changed := Transliterate(tt.in)
		if got != tt.want || changed != tt.changed {
			t.Errorf("Transliterate(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
}
