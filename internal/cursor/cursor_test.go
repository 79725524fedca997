package cursor

import (
	"encoding/base64"
	"errors"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, p := range []Position{
		{1, "0b8e1b5c-8c39-4f55-9a53-7d2b1c0e9f11"},
		{0, "a"},
		{9223372036854775807, "k_1-x"},
	} {
		got, err := Decode(Encode(p))
		if err != nil || got != p {
			t.Errorf("Decode(Encode(%+v)) = %+v, %v", p, got, err)
		}
		// Padded base64 is read too.
		s := Encode(p)
		for len(s)%4 != 0 {
			s += "="
		}
		if got, err := Decode(s); err != nil || got != p {
			t.Errorf("padded %q: %+v, %v", s, got, err)
		}
	}
	if p, err := Decode(""); err != nil || p != (Position{}) {
		t.Errorf("empty: %+v %v", p, err)
	}
}

func TestDecodeInvalid(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, s := range []string{
		"!!!",
		"aGVsbG8", // "hello": no colon
		enc("x:abc"),
		enc("-1:abc"),
		enc("01:abc"),
		enc("1:"),
		enc("1:a/b"),
		enc("1:a:b"),
		enc("99999999999999999999:a"),
		enc("1:" + string(make([]byte, 70))),
		string(make([]byte, MaxLen+1)),
	} {
		if p, err := Decode(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q) = %+v, %v; want ErrInvalid", s, p, err)
		}
	}
}

func TestAfter(t *testing.T) {
	p := Position{5, "m"}
	for _, tc := range []struct {
		seq  int64
		id   string
		want bool
	}{{6, "a", true}, {5, "n", true}, {5, "m", false}, {5, "a", false}, {4, "z", false}} {
		if got := p.After(tc.seq, tc.id); got != tc.want {
			t.Errorf("After(%d, %q) = %v", tc.seq, tc.id, got)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("")
	f.Add(Encode(Position{3, "abc"}))
	f.Add("MTo=")
	f.Add("=====")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Decode(s)
		if err != nil {
			return
		}
		if s == "" {
			return
		}
		// Whatever decodes is a position that encodes to the same thing.
		if q, err := Decode(Encode(p)); err != nil || q != p {
			t.Fatalf("%q -> %+v -> %+v %v", s, p, q, err)
		}
	})
}
