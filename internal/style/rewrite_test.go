package style

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// known is the tileset lookup of the rewrite tests: names map to ids.
func known(names ...string) func(string) (string, bool) {
	set := map[string]string{}
	for _, n := range names {
		id, name, ok := strings.Cut(n, "=")
		if !ok {
			name = id
		}
		set[name] = id
	}
	return func(name string) (string, bool) {
		id, ok := set[name]
		return id, ok
	}
}

func TestRewrite(t *testing.T) {
	const base = "https://maps.example.com"
	type want struct {
		url      string   // sources.s.url
		tiles    []string // sources.s.tiles
		glyphs   string
		sprites  []string
		problems []string // "path tileset" of each problem
	}
	tests := []struct {
		name  string
		style string
		r     Resolver
		want  want
	}{
		{
			name:  "mbtiles braces form",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"mbtiles://{osm}"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, MapID: "basic", Key: "K1", Tileset: known("osm")},
			want:  want{url: base + "/tiles/osm/tiles.json?key=K1"},
		},
		{
			name:  "mbtiles file name form",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"mbtiles://zurich.mbtiles"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Tileset: known("zurich-v3=zurich")},
			want:  want{url: base + "/tiles/zurich-v3/tiles.json"},
		},
		{
			name:  "pmtiles plain name",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"pmtiles://planet"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Tileset: known("planet")},
			want:  want{url: base + "/tiles/planet/tiles.json"},
		},
		{
			name:  "missing tileset is reported and kept",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"mbtiles://gone"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Tileset: known("osm")},
			want:  want{url: base + "/tiles/gone/tiles.json", problems: []string{"sources.s.url gone"}},
		},
		{
			name:  "root-relative tilejson",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"/tiles/osm/tiles.json"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K", Tileset: known("osm")},
			want:  want{url: base + "/tiles/osm/tiles.json?key=K"},
		},
		{
			name:  "root-relative tilejson of a missing tileset",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"/tiles/gone/tiles.json"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Tileset: known("osm")},
			want:  want{url: base + "/tiles/gone/tiles.json", problems: []string{"sources.s.url gone"}},
		},
		{
			name:  "third-party URL untouched, no key",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"https://api.maptiler.com/tiles/v3/tiles.json?key=theirs"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "ours"},
			want:  want{url: "https://api.maptiler.com/tiles/v3/tiles.json?key=theirs"},
		},
		{
			name:  "absolute URL of this server gets the key",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"https://maps.example.com/tiles/osm/tiles.json"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K", Tileset: known("osm")},
			want:  want{url: base + "/tiles/osm/tiles.json?key=K"},
		},
		{
			name:  "host that only starts like the base is third-party",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"https://maps.example.com.evil.net/x.json"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K"},
			want:  want{url: "https://maps.example.com.evil.net/x.json"},
		},
		{
			name:  "tiles array: root-relative, mbtiles and third-party",
			style: `{"version":8,"sources":{"s":{"type":"vector","tiles":["/tiles/osm/{z}/{x}/{y}.pbf","mbtiles://osm","https://a.tile.example.org/{z}/{x}/{y}.png"]}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K", Tileset: known("osm")},
			want: want{tiles: []string{
				base + "/tiles/osm/{z}/{x}/{y}.pbf?key=K",
				base + "/tiles/osm/{z}/{x}/{y}?key=K",
				"https://a.tile.example.org/{z}/{x}/{y}.png",
			}},
		},
		{
			name:  "glyphs root-relative keeps template braces",
			style: `{"version":8,"sources":{},"layers":[],"glyphs":"/fonts/{fontstack}/{range}.pbf"}`,
			r:     Resolver{BaseURL: base, Key: "a b&c"},
			want:  want{glyphs: base + "/fonts/{fontstack}/{range}.pbf?key=a+b%26c"},
		},
		{
			name:  "glyphs relative resolve under fonts",
			style: `{"version":8,"sources":{},"layers":[],"glyphs":"{fontstack}/{range}.pbf"}`,
			r:     Resolver{BaseURL: base},
			want:  want{glyphs: base + "/fonts/{fontstack}/{range}.pbf"},
		},
		{
			name:  "glyphs local scheme is the server root",
			style: `{"version":8,"sources":{},"layers":[],"glyphs":"local://fonts/{fontstack}/{range}.pbf"}`,
			r:     Resolver{BaseURL: base + "/tessera/"},
			want:  want{glyphs: base + "/tessera/fonts/{fontstack}/{range}.pbf"},
		},
		{
			name:  "local scheme outside the server routes is relative to the map",
			style: `{"version":8,"sources":{"s":{"type":"vector","tiles":["local://tiles/{z}-{x}-{y}.mvt"]}},"layers":[],"sprite":"local://sprites/sprite","glyphs":"local://glyphs/{fontstack}/{range}.pbf"}`,
			r:     Resolver{BaseURL: base, MapID: "demo"},
			want: want{
				tiles:   []string{base + "/tiles/{z}-{x}-{y}.mvt"},
				sprites: []string{base + "/maps/demo/sprites/sprite"},
				glyphs:  base + "/fonts/glyphs/{fontstack}/{range}.pbf",
			},
		},
		{
			name:  "tileserver-gl local data URL names a tileset",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"local://data/openmaptiles.json"}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K", Tileset: known("omt=openmaptiles")},
			want:  want{url: base + "/tiles/omt/tiles.json?key=K"},
		},
		{
			name:  "sprite string relative to the map folder",
			style: `{"version":8,"sources":{},"layers":[],"sprite":"sprite"}`,
			r:     Resolver{BaseURL: base, MapID: "basic", Key: "K"},
			want:  want{sprites: []string{base + "/maps/basic/sprite?key=K"}},
		},
		{
			name:  "sprite array",
			style: `{"version":8,"sources":{},"layers":[],"sprite":[{"id":"a","url":"/maps/basic/sprite"},{"id":"b","url":"https://cdn.example.org/s"},{"id":"c","url":"./icons/x"}]}`,
			r:     Resolver{BaseURL: base, MapID: "basic", Key: "K"},
			want: want{sprites: []string{
				base + "/maps/basic/sprite?key=K",
				"https://cdn.example.org/s",
				base + "/maps/basic/icons/x?key=K",
			}},
		},
		{
			name:  "existing query gets an extra parameter, existing key is kept",
			style: `{"version":8,"sources":{"s":{"type":"raster","tiles":["/tiles/r/{z}/{x}/{y}.png?v=2","/tiles/r/{z}/{x}/{y}.png?key=old#f"]}},"layers":[]}`,
			r:     Resolver{BaseURL: base, Key: "K", Tileset: known("r")},
			want: want{tiles: []string{
				base + "/tiles/r/{z}/{x}/{y}.png?v=2&key=K",
				base + "/tiles/r/{z}/{x}/{y}.png?key=old#f",
			}},
		},
		{
			name:  "mapbox scheme is reported and left",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"mapbox://mapbox.streets"}},"layers":[]}`,
			r:     Resolver{BaseURL: base},
			want:  want{url: "mapbox://mapbox.streets", problems: []string{"sources.s.url "}},
		},
		{
			name:  "empty base gives root-relative URLs",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"mbtiles://osm"}},"layers":[],"glyphs":"/fonts/{fontstack}/{range}.pbf"}`,
			r:     Resolver{Tileset: known("osm")},
			want:  want{url: "/tiles/osm/tiles.json", glyphs: "/fonts/{fontstack}/{range}.pbf"},
		},
		{
			name:  "nil lookup accepts every name",
			style: `{"version":8,"sources":{"s":{"type":"vector","url":"pmtiles://world.pmtiles"}},"layers":[]}`,
			r:     Resolver{BaseURL: base},
			want:  want{url: base + "/tiles/world/tiles.json"},
		},
		{
			name:  "dot segments are resolved",
			style: `{"version":8,"sources":{"s":{"type":"image","url":"../shared/img.png","coordinates":[[0,0],[1,0],[1,1],[0,1]]}},"layers":[]}`,
			r:     Resolver{BaseURL: base, MapID: "m"},
			want:  want{url: base + "/maps/shared/img.png"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.style))
			if err != nil {
				t.Fatal(err)
			}
			before, _ := s.MarshalJSON()
			out, problems := s.Rewrite(tt.r)
			after, _ := s.MarshalJSON()
			if !bytes.Equal(before, after) {
				t.Errorf("Rewrite modified the style:\n%s\n%s", before, after)
			}
			got, err := Parse(out)
			if err != nil {
				t.Fatalf("rewritten style does not parse: %v\n%s", err, out)
			}
			if src := got.SourceByKey["s"]; src != nil {
				if tt.want.url != "" && src.URL != tt.want.url {
					t.Errorf("url = %q, want %q", src.URL, tt.want.url)
				}
				if tt.want.tiles != nil && !reflect.DeepEqual(src.Tiles, tt.want.tiles) {
					t.Errorf("tiles = %q, want %q", src.Tiles, tt.want.tiles)
				}
			} else if tt.want.url != "" || tt.want.tiles != nil {
				t.Fatalf("source s lost:\n%s", out)
			}
			if tt.want.glyphs != "" && got.Glyphs != tt.want.glyphs {
				t.Errorf("glyphs = %q, want %q", got.Glyphs, tt.want.glyphs)
			}
			if tt.want.sprites != nil {
				var urls []string
				for _, sp := range got.Sprites {
					urls = append(urls, sp.URL)
				}
				if !reflect.DeepEqual(urls, tt.want.sprites) {
					t.Errorf("sprites = %q, want %q", urls, tt.want.sprites)
				}
			}
			var gotProblems []string
			for _, p := range problems {
				gotProblems = append(gotProblems, p.Path+" "+p.Tileset)
				if p.Message == "" || p.URL == "" {
					t.Errorf("problem without message or URL: %+v", p)
				}
			}
			if !reflect.DeepEqual(gotProblems, tt.want.problems) {
				t.Errorf("problems = %q, want %q", gotProblems, tt.want.problems)
			}
		})
	}
}

// TestRewriteKeepsEverythingElse checks that a rewrite changes only URLs:
// unknown members, member order and numbers stay as written.
func TestRewriteKeepsEverythingElse(t *testing.T) {
	in := `{"version":8,"x-custom":{"b":1,"a":[1.50,2e3]},"name":"n","sources":{"s":{"type":"vector","url":"mbtiles://osm","x-extra":true}},` +
		`"layers":[{"id":"bg","type":"background","paint":{"background-color":"#fff"},"x-layer":"kept"}],"sprite":"sprite"}`
	s, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, problems := s.Rewrite(Resolver{BaseURL: "https://h", MapID: "m"})
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	want := `{"version":8,"x-custom":{"b":1,"a":[1.50,2e3]},"name":"n","sources":{"s":{"type":"vector","url":"https://h/tiles/osm/tiles.json","x-extra":true}},` +
		`"layers":[{"id":"bg","type":"background","paint":{"background-color":"#fff"},"x-layer":"kept"}],"sprite":"https://h/maps/m/sprite"}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if !json.Valid(out) {
		t.Error("output is not valid JSON")
	}
}

func TestWithKey(t *testing.T) {
	tests := []struct{ u, key, want string }{
		{"https://h/a", "", "https://h/a"},
		{"https://h/a", "k", "https://h/a?key=k"},
		{"https://h/a?", "k", "https://h/a?key=k"},
		{"https://h/a?x=1", "k", "https://h/a?x=1&key=k"},
		{"https://h/a?x=1&", "k", "https://h/a?x=1&key=k"},
		{"https://h/a#frag", "k", "https://h/a?key=k#frag"},
		{"https://h/a?key=z", "k", "https://h/a?key=z"},
		{"https://h/a?monkey=z", "k", "https://h/a?monkey=z&key=k"},
		{"https://h/{z}/{x}/{y}", "k/=", "https://h/{z}/{x}/{y}?key=k%2F%3D"},
	}
	for _, tt := range tests {
		if got := withKey(tt.u, tt.key); got != tt.want {
			t.Errorf("withKey(%q, %q) = %q, want %q", tt.u, tt.key, got, tt.want)
		}
	}
}

func TestSplitScheme(t *testing.T) {
	tests := []struct {
		u, scheme, rest string
		ok              bool
	}{
		{"mbtiles://osm", "mbtiles", "osm", true},
		{"PMTiles://a.pmtiles", "pmtiles", "a.pmtiles", true},
		{"data:application/json,{}", "data", "application/json,{}", true},
		{"/tiles/x", "", "", false},
		{"{fontstack}/{range}.pbf", "", "", false},
		{"1abc://x", "", "", false},
		{"a+b.c-d://x", "a+b.c-d", "x", true},
		{":x", "", "", false},
	}
	for _, tt := range tests {
		scheme, rest, ok := splitScheme(tt.u)
		if scheme != tt.scheme || rest != tt.rest || ok != tt.ok {
			t.Errorf("splitScheme(%q) = %q, %q, %v; want %q, %q, %v", tt.u, scheme, rest, ok, tt.scheme, tt.rest, tt.ok)
		}
	}
}

// TestRewriteFixtures rewrites every shared style fixture and checks that the
// result validates exactly as the original and that every resource URL of
// the result is absolute.
func TestRewriteFixtures(t *testing.T) {
	shared := sharedDir(t)
	fixtures := styleFixtures(t, shared)
	const base = "https://maps.example.com"
	rewritten := 0
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, _ := s.Rewrite(Resolver{BaseURL: base, MapID: "m", Key: "K"})
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("%s: rewritten style does not parse: %v", f, err)
		}
		if a, b := Validate(s, nil), Validate(got, nil); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: validation changed by the rewrite:\n%v\n%v", f, a, b)
		}
		var urls []string
		for _, src := range got.Sources {
			if src.URL != "" {
				urls = append(urls, src.URL)
			}
			urls = append(urls, src.Tiles...)
		}
		if got.Glyphs != "" {
			urls = append(urls, got.Glyphs)
		}
		for _, sp := range got.Sprites {
			urls = append(urls, sp.URL)
		}
		for _, u := range urls {
			switch {
			case strings.HasPrefix(u, base+"/"):
				rewritten++
				if !strings.Contains(u, "key=") {
					t.Errorf("%s: URL of this server without the key: %s", f, u)
				}
			case strings.HasPrefix(u, "https://"), strings.HasPrefix(u, "http://"), strings.HasPrefix(u, "mapbox://"):
			default:
				t.Errorf("%s: URL not made absolute: %s", f, u)
			}
		}
	}
	if rewritten == 0 {
		t.Error("no URL of the fixtures was rewritten")
	}
	t.Logf("%d fixtures, %d URLs rewritten to this server", len(fixtures), rewritten)
}
