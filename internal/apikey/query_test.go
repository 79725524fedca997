package apikey

import (
	"net/url"
	"testing"
)

func TestFromQuery(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"", ""},
		{"key=abc", "abc"},
		{"a=1&key=abc&b=2", "abc"},
		{"key=abc&key=def", "abc"},
		{"mykey=x&key=y", "y"},
		{"key", ""},
		{"key=", ""},
		{"k%65y=abc", "abc"},
		{"key=a%2Bb", "a+b"},
		{"key=a+b", "a b"},
		{"key=%zz", ""},
		{"key=%zz&key=b", "b"},
		{"a;b=1&key=ok", "ok"},
		{"key=x;y&key=z", "z"},
	} {
		if got := FromQuery(tc.raw); got != tc.want {
			t.Errorf("FromQuery(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// FuzzFromQuery holds FromQuery to net/url's reading of the same query.
func FuzzFromQuery(f *testing.F) {
	for _, s := range []string{"key=abc", "a=1&key=b", "k%65y=%41", "key=%zz&key=b", "x;y&key=1", "key=a+b&key=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := FromQuery(raw)
		q, _ := url.ParseQuery(raw) // on a bad query, the pairs it could read
		if want := q.Get("key"); got != want {
			t.Fatalf("FromQuery(%q) = %q, net/url %q", raw, got, want)
		}
	})
}
