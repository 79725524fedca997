package geoip

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestShortest(t *testing.T) {
	for in, want := range map[float64]float64{
		float64(float32(51.5143)):    51.5143,
		float64(float32(-0.0912244)): -0.0912244,
		47.37:                        47.37, // a float64 value is kept
		float64(float32(-122.085)):   -122.085,
	} {
		if got := shortest(in); got != want {
			t.Errorf("shortest(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestZoneAndRegion(t *testing.T) {
	tb := &Tables{
		Countries: map[string]*Country{"CH": {Regions: []Region{{"ZH", "Zürich"}, {"BE", "Bern"}, {"BL", "Basel-Landschaft"}, {"BS", "Basel-Stadt"}}}},
		Zones:     []string{"Europe/Zurich", "Pacific/Fiji", "Pacific/Tongatapu"},
		Places:    [][3]float64{{8.5, 47.4, 0}, {179.9, -17, 1}, {-175.2, -21.1, 2}},
	}
	db := &DB{}
	db.setTables(tb)
	// Twice: the second answers come from the kept ones.
	for pass := range 2 {
		for _, c := range []struct{ cc, name, want string }{
			{"CH", "Zurich", "ZH"}, {"CH", "ZÜRICH", "ZH"}, {"CH", "Canton of Bern", "BE"}, {"CH", "Basel", ""}, {"CH", "", ""}, {"FR", "Zurich", ""},
		} {
			if got := db.regions.code(c.cc, c.name); got != c.want {
				t.Errorf("pass %d: region %s %q: %q, want %q", pass, c.cc, c.name, got, c.want)
			}
		}
	}
	for _, c := range []struct {
		lon, lat float64
		want     string
	}{{8.6, 47.3, "Europe/Zurich"}, {-179.9, -17.2, "Pacific/Fiji"}, {-175, -21, "Pacific/Tongatapu"}, {60, 0, ""}} {
		if got := db.zones.zone(c.lon, c.lat); got != c.want {
			t.Errorf("zone at %g,%g: %q, want %q", c.lon, c.lat, got, c.want)
		}
	}
}

func TestCell(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		want     int
		ok       bool
	}{
		{-180, -90, 0, true},
		{-179.5, -89.5, 0, true},
		{179.99, -90, 359, true},
		{180, -90, 0, true}, // the antimeridian is one column
		{0, 0, 90*zoneCols + 180, true},
		{-0.5, 0.5, 90*zoneCols + 179, true},
		{179.5, 90, 180*zoneCols + 359, true},
		{0, 90.5, 0, false},
		{0, -91, 0, false},
		{180.5, 0, 0, false},
		{math.NaN(), 0, 0, false},
		{0, math.Inf(1), 0, false},
	} {
		got, ok := placeCell(c.lon, c.lat)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("placeCell(%g, %g) = %d, %v; want %d, %v", c.lon, c.lat, got, ok, c.want, c.ok)
		}
	}
	// Columns wrap across the antimeridian, rows do not.
	for _, c := range []struct{ bx, by, want int }{{-181, 0, 90*zoneCols + 359}, {180, 0, 90*zoneCols + 0}, {540, 1, 91 * zoneCols}, {-540, -90, 0}} {
		if got, ok := cell(c.bx, c.by); !ok || got != c.want {
			t.Errorf("cell(%d, %d) = %d, %v; want %d", c.bx, c.by, got, ok, c.want)
		}
	}
}

// TestZoneNearest checks the zone index against every place: the zone of
// the nearest place (longitude scaled by the cosine of the latitude)
// among those whose one-degree cell is at most 10 cells away, wrapping
// across the antimeridian; "" when there is none.
func TestZoneNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tb := &Tables{}
	for i := range 40 {
		tb.Zones = append(tb.Zones, fmt.Sprintf("Zone/%d", i))
	}
	for range 4000 {
		// Dense near the antimeridian and the poles, sparse elsewhere.
		lon, lat := rng.Float64()*360-180, rng.Float64()*180-90
		switch rng.IntN(3) {
		case 0:
			lon = 180 - rng.Float64()*6
			if rng.IntN(2) == 0 {
				lon = -lon
			}
		case 1:
			lat = 90 - rng.Float64()*8
			if rng.IntN(2) == 0 {
				lat = -lat
			}
		}
		tb.Places = append(tb.Places, [3]float64{lon, lat, float64(rng.IntN(len(tb.Zones)))})
	}
	tb.Places = append(tb.Places, [3]float64{180, 10, 3}, [3]float64{-180, -10, 4}, [3]float64{0, 90, 5}, [3]float64{0, -90, 6})
	ix := newZoneIndex(tb)
	want := func(lon, lat float64) string {
		cx, cy := int(math.Floor(lon)), int(math.Floor(lat))
		coslat := math.Cos(lat * math.Pi / 180)
		best, bestD := -1, math.Inf(1)
		for i, p := range tb.Places {
			px, py := int(math.Floor(p[0])), int(math.Floor(p[1]))
			dx := ((px-cx)%360 + 360) % 360
			if p[0] == 180 {
				dx = ((-180-cx)%360 + 360) % 360
			}
			dx = min(dx, 360-dx)
			if dx > 10 || abs(py-cy) > 10 {
				continue
			}
			ddx := math.Mod(math.Abs(p[0]-lon), 360)
			if ddx > 180 {
				ddx = 360 - ddx
			}
			ddx *= coslat
			if d := ddx*ddx + (p[1]-lat)*(p[1]-lat); d < bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			return ""
		}
		return tb.Zones[int(tb.Places[best][2])]
	}
	queries := [][2]float64{{179.999, 10}, {-179.999, 10}, {180, -10}, {0, 89.99}, {0, -89.99}, {10, 90}, {-170, -85}}
	for range 3000 {
		queries = append(queries, [2]float64{rng.Float64()*360 - 180, rng.Float64()*180 - 90})
	}
	for _, q := range queries {
		if got, w := ix.zone(q[0], q[1]), want(q[0], q[1]); got != w {
			t.Errorf("zone at %g,%g: %q, the nearest place's is %q", q[0], q[1], got, w)
		}
	}
	// Places off the globe are left out; no places: no zone.
	odd := newZoneIndex(&Tables{Zones: []string{"A"}, Places: [][3]float64{{200, 0, 0}, {0, 95, 0}, {math.NaN(), 0, 0}}})
	if z := odd.zone(0, 0); z != "" {
		t.Errorf("places off the globe give %q", z)
	}
	if z := newZoneIndex(&Tables{}).zone(0, 0); z != "" {
		t.Errorf("no places give %q", z)
	}
}

func TestRegionMatch(t *testing.T) {
	ix := newRegionIndex(map[string]*Country{
		"FR": {Regions: []Region{{"IDF", "Île-de-France"}, {"NOR", "Normandie"}, {"ARA", "Auvergne-Rhône-Alpes"}}},
		"DE": {Regions: []Region{{"BW", "Baden-Württemberg"}, {"BY", "Bayern"}, {"BE", "Berlin"}}},
		"F":  {Regions: []Region{{"X", "Normandie"}}}, // a key prefix of another country's
		"XX": {Regions: []Region{{"A", "Same"}, {"B", "same"}}},
	})
	for _, c := range []struct{ cc, name, want string }{
		{"FR", "Ile-de-France", "IDF"},         // folded equal
		{"FR", "ÎLE-DE-FRANCE", "IDF"},         // case
		{"DE", "Baden-Württemberg Land", "BW"}, // contains a region's name
		{"DE", "Baden", "BW"},                  // contained in one
		{"DE", "Be", ""},                       // contained in two: none
		{"FR", "Bayern", ""},                   // another country's
		{"F", "Normandie", "X"},
		{"F", "Île-de-France", ""}, // not in F, though FR starts with F
		{"FR", "Normandie", "NOR"},
		{"XX", "SAME", "B"}, // the later of one folded name
		{"ZZ", "Bayern", ""},
		{"", "Bayern", ""},
	} {
		if got := ix.codeAt(ix.match(c.cc, c.name)); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.cc, c.name, got, c.want)
		}
		// The same through the kept answers, twice.
		for range 2 {
			if got := ix.code(c.cc, c.name); got != c.want {
				t.Errorf("kept %s %q: %q, want %q", c.cc, c.name, got, c.want)
			}
		}
	}
	// A kept answer costs no allocation.
	ix.code("FR", "Ile-de-France")
	if n := testing.AllocsPerRun(100, func() { ix.code("FR", "Ile-de-France") }); n != 0 {
		t.Errorf("a kept answer allocates %v times", n)
	}
}

func TestRegionCache(t *testing.T) {
	c := newRegionCache()
	if _, ok := c.get(1, "FR", "Paris"); ok {
		t.Error("an empty cache has an answer")
	}
	c.put(1, "FR", "Paris", 7)
	if v, ok := c.get(1, "FR", "Paris"); !ok || v != 7 {
		t.Errorf("get = %d, %v; want 7", v, ok)
	}
	// Another pair of the same hash is neither answered nor kept.
	for _, k := range [][2]string{{"FR", "Pari"}, {"F", "RParis"}, {"FRP", "aris"}, {"FR", "Paris "}, {"DE", "Paris"}} {
		if _, ok := c.get(1, k[0], k[1]); ok {
			t.Errorf("%q answered for FR Paris", k)
		}
		c.put(1, k[0], k[1], 9)
	}
	if v, ok := c.get(1, "FR", "Paris"); !ok || v != 7 {
		t.Errorf("after colliding puts: %d, %v", v, ok)
	}
	// Hashes differ by country and name.
	if c.hash("FR", "Paris") == c.hash("F", "RParis") || c.hash("FR", "Paris") == c.hash("FR", "Pari") {
		t.Error("hash ignores where the country ends")
	}
	// A full cache keeps nothing more.
	for i := range maxCachedRegions {
		c.put(uint64(i+2), "CC", fmt.Sprint(i), int32(i))
	}
	c.put(1<<40, "FR", "Lyon", 3)
	if _, ok := c.get(1<<40, "FR", "Lyon"); ok {
		t.Error("a full cache kept another answer")
	}
	if v, ok := c.get(uint64(100+2), "CC", "100"); !ok || v != 100 {
		t.Errorf("kept answer 100: %d, %v", v, ok)
	}
}

// TestRegionConcurrent asks for regions from several goroutines at once
// (run with -race): the kept answers are shared.
func TestRegionConcurrent(t *testing.T) {
	ix := newRegionIndex(map[string]*Country{"CH": {Regions: []Region{{"ZH", "Zürich"}, {"BE", "Bern"}, {"GE", "Genève"}}}})
	names := []struct{ name, want string }{{"Zurich", "ZH"}, {"Bern", "BE"}, {"Geneva", ""}, {"Geneve", "GE"}, {"Canton of Bern", "BE"}}
	done := make(chan bool)
	for g := range 8 {
		go func() {
			ok := true
			for i := range 200 {
				c := names[(g+i)%len(names)]
				ok = ok && ix.code("CH", c.name) == c.want
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent lookup gave a wrong code")
		}
	}
}
