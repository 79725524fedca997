package geocode

import (
	"context"
	"testing"
)

func benchForward(b *testing.B, q ForwardQuery) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Forward(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForwardExact(b *testing.B) {
	benchForward(b, ForwardQuery{Text: "Fort Lauderdale", NoAutocomplete: true})
}
func BenchmarkForwardAutocomplete(b *testing.B) { benchForward(b, ForwardQuery{Text: "San Di"}) }
func BenchmarkForwardTypo(b *testing.B)         { benchForward(b, ForwardQuery{Text: "Heloinki"}) }
func BenchmarkForwardShortPrefix(b *testing.B)  { benchForward(b, ForwardQuery{Text: "s"}) }
func BenchmarkForwardContext(b *testing.B)      { benchForward(b, ForwardQuery{Text: "Paris France"}) }

func BenchmarkReverse(b *testing.B) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Reverse(ctx, ReverseQuery{Lon: 8.54, Lat: 47.37}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkByID(b *testing.B) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ix.ByID(ctx, "locality.2661604", IDOptions{Languages: []string{"de", "fr"}}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForwardManyWords(b *testing.B) {
	benchForward(b, ForwardQuery{Text: "San Juan del Río", NoAutocomplete: true})
}
