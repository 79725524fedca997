package apikey

import (
	"fmt"
	"testing"
)

// BenchmarkCheck is one key check of a restricted key among 1000 keys.
func BenchmarkCheck(b *testing.B) {
	var keys []*Key
	for i := range 1000 {
		keys = append(keys, &Key{ID: fmt.Sprint(i), Token: fmt.Sprintf("token-%04d-abcdefghijklmnopqrstuv", i)})
	}
	k := keys[500]
	if err := (Settings{Origins: Value([]string{"*.example.com", "example.org"}), UserAgent: Value("Mozilla/")}).apply(k); err != nil {
		b.Fatal(err)
	}
	s := NewSnapshot(keys)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Check(k.Token, "https://maps.example.com", "", "Mozilla/5.0 (X11; Linux x86_64)"); err != nil {
			b.Fatal(err)
		}
	}
}
