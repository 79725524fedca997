package style

import (
	"os"
	"path/filepath"
	"testing"
)

func loadBenchStyle(b *testing.B) *Style {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(sharedDir(b), "bench", "street-style.json"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkValidateStreetStyle(b *testing.B) {
	s := loadBenchStyle(b)
	b.ReportAllocs()
	for b.Loop() {
		if errs := Validate(s, nil); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkRewriteStreetStyle(b *testing.B) {
	s := loadBenchStyle(b)
	b.ReportAllocs()
	for b.Loop() {
		s.Rewrite(Resolver{BaseURL: "https://h", MapID: "m", Key: "k"})
	}
}
