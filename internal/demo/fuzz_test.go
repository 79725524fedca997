package demo

import (
	"bytes"
	"context"
	"math"
	"testing"
)

func FuzzParsePlaces(f *testing.F) {
	for _, l := range testPlaces {
		f.Add([]byte(l + "\n"))
	}
	f.Add([]byte("1\ta\ta\t\t0\t0\tP\tPPL\tXX\t\t\t\t\t\t\t\t\t\t\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		_ = parsePlaces(context.Background(), bytes.NewReader(data), func(p place) error {
			n++
			if p.Name == "" || p.GeonameID == 0 || p.Population < 0 || math.Abs(p.Lat) > 90 || math.Abs(p.Lon) > 180 {
				t.Fatalf("invalid place accepted: %+v", p)
			}
			return nil
		})
		if n > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d places from %d lines", n, bytes.Count(data, []byte("\n"))+1)
		}
	})
}
