package style

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func addStyleSeeds(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/broken/*.json")
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"version":8,"sources":{"s":{"type":"vector","url":"mbtiles://{osm}"}},"layers":[{"id":"a","type":"fill","source":"s","source-layer":"l","paint":{"fill-color":["case",["has","x"],"red","blue"]}}]}`))
	f.Add([]byte(`{"version":8,"sources":{},"layers":[{"id":"a","type":"line","source":"s","paint":{"line-width":{"stops":[[{"zoom":1,"value":2},3]],"property":"p"}}}],"sprite":[{"id":"x","url":"/s"}],"glyphs":"{fontstack}/{range}.pbf"}`))
	f.Add([]byte(`{"version":8,"layers":[{"filter":["all",["in","$type","Point"],true,["!has","x"]]}]}`))
}

// FuzzStyle checks that Parse and Validate never panic and that a style
// written back and parsed again validates the same.
func FuzzStyle(f *testing.F) {
	addStyleSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		errs := Validate(s, nil)
		if len(errs) > MaxValidationErrors {
			t.Fatalf("%d errors, more than the limit", len(errs))
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		s2, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		if errs2 := Validate(s2, nil); !reflect.DeepEqual(errs, errs2) {
			t.Fatalf("validation changed after a round trip:\n%v\n%v", errs, errs2)
		}
	})
}

// FuzzRewrite checks that Rewrite never panics, always writes a style that
// parses, leaves the input alone, never changes a third-party URL, and never
// leaks the key into one.
func FuzzRewrite(f *testing.F) {
	addStyleSeeds(f)
	f.Add([]byte(`{"version":8,"sources":{"a":{"type":"vector","url":"https://other.example/x.json"},"b":{"type":"raster","tiles":["/tiles/x/{z}/{x}/{y}","local://q","../..//a?b#c"]}},"glyphs":"local://fonts/{fontstack}/{range}.pbf","sprite":"sprite","layers":[]}`))
	const base = "https://tessera.test/root"
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		before, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		const key = "SECRETKEY"
		out, problems := s.Rewrite(Resolver{BaseURL: base, MapID: "m/x", Key: key, Tileset: known("osm")})
		after, _ := s.MarshalJSON()
		if string(before) != string(after) {
			t.Fatal("Rewrite modified its input")
		}
		for _, p := range problems {
			if p.Message == "" {
				t.Fatalf("problem without a message: %+v", p)
			}
		}
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("rewritten style does not parse: %v\n%s", err, out)
		}
		check := func(in, res string) {
			third := (strings.HasPrefix(in, "http://") || strings.HasPrefix(in, "https://")) && !strings.HasPrefix(in, base)
			if third && in != res {
				t.Fatalf("third-party URL %q changed to %q", in, res)
			}
			if third && strings.Contains(res, key) && !strings.Contains(in, key) {
				t.Fatalf("key leaked into %q", res)
			}
		}
		for _, src := range s.Sources {
			rs := got.SourceByKey[src.Name]
			if rs == nil {
				t.Fatalf("source %q lost", src.Name)
			}
			check(src.URL, rs.URL)
			if len(src.Tiles) == len(rs.Tiles) {
				for i := range src.Tiles {
					check(src.Tiles[i], rs.Tiles[i])
				}
			}
		}
		check(s.Glyphs, got.Glyphs)
		if len(s.Sprites) == len(got.Sprites) {
			for i := range s.Sprites {
				check(s.Sprites[i].URL, got.Sprites[i].URL)
			}
		}
	})
}
