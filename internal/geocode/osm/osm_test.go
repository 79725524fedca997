package osm

import (
	"context"
	"errors"
	"github.com/tesseramaps/tessera/internal/geo"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

// testOSM is a small extract: a municipality and a country drawn as a
// square of two ways (the second reversed) with a hole, a street split in
// two ways, a dual carriageway, addresses, a café, a supermarket building,
// a postal code boundary, a suburb and a broken boundary.
const testOSM = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6" generator="test">
  <node id="1" version="1" lat="50.0" lon="10.0"/>
  <node id="2" version="1" lat="50.0" lon="10.1"/>
  <node id="3" version="1" lat="50.1" lon="10.1"/>
  <node id="4" version="1" lat="50.1" lon="10.0"/>
  <node id="5" version="1" lat="50.05" lon="10.05">
    <tag k="place" v="town"/><tag k="name" v="Testburg"/><tag k="population" v="12000"/>
  </node>
  <node id="6" version="1" lat="50.02" lon="10.02"/>
  <node id="7" version="1" lat="50.02" lon="10.03"/>
  <node id="8" version="1" lat="50.03" lon="10.03"/>
  <node id="9" version="1" lat="50.03" lon="10.02"/>
  <node id="21" version="1" lat="50.06" lon="10.04"/>
  <node id="22" version="1" lat="50.06" lon="10.05"/>
  <node id="23" version="1" lat="50.06" lon="10.06"/>
  <node id="24" version="1" lat="50.5" lon="10.5"/>
  <node id="25" version="1" lat="50.5" lon="10.51"/>
  <node id="31" version="1" lat="50.07" lon="10.07"/>
  <node id="32" version="1" lat="50.07" lon="10.08"/>
  <node id="33" version="1" lat="50.0704" lon="10.08"/>
  <node id="34" version="1" lat="50.0704" lon="10.07"/>
  <node id="50" version="1" lat="50.061" lon="10.051">
    <tag k="addr:housenumber" v="12"/><tag k="addr:street" v="Hauptstraße"/>
    <tag k="addr:postcode" v="12345"/><tag k="addr:city" v="Testburg"/>
  </node>
  <node id="52" version="1" lat="50.062" lon="10.052"/>
  <node id="53" version="1" lat="50.062" lon="10.054"/>
  <node id="54" version="1" lat="50.064" lon="10.054"/>
  <node id="55" version="1" lat="50.064" lon="10.052"/>
  <node id="56" version="1" lat="50.09" lon="10.09">
    <tag k="addr:housenumber" v="3a"/><tag k="addr:place" v="Am Hof"/>
  </node>
  <node id="60" version="1" lat="50.055" lon="10.055">
    <tag k="amenity" v="cafe"/><tag k="name" v="Café Krümel"/><tag k="name:en" v="Crumb Café"/>
    <tag k="opening_hours" v="Mo-Fr 08:00-18:00"/><tag k="cuisine" v="coffee_shop"/>
    <tag k="website" v="https://example.org/"/>
  </node>
  <node id="61" version="1" lat="50.056" lon="10.056"><tag k="amenity" v="bench"/></node>
  <node id="62" version="1" lat="50.081" lon="10.081"/>
  <node id="63" version="1" lat="50.081" lon="10.083"/>
  <node id="64" version="1" lat="50.083" lon="10.083"/>
  <node id="65" version="1" lat="50.083" lon="10.081"/>
  <node id="70" version="1" lat="50.045" lon="10.045">
    <tag k="place" v="suburb"/><tag k="name" v="Altstadt"/>
  </node>
  <node id="81" version="1" lat="50.091" lon="10.091"/>
  <node id="82" version="1" lat="50.093" lon="10.091"/>
  <node id="83" version="1" lat="50.093" lon="10.093"/>
  <node id="84" version="1" lat="50.091" lon="10.093"/>
  <node id="86" version="1" lat="50.011" lon="10.011"/>
  <node id="87" version="1" lat="50.011" lon="10.013"/>
  <node id="88" version="1" lat="50.013" lon="10.013"/>
  <node id="89" version="1" lat="50.013" lon="10.011"/>
  <node id="91" version="1" lat="50.2" lon="10.2"/>
  <node id="92" version="1" lat="50.2" lon="10.21"/>
  <way id="80" version="1">
    <nd ref="81"/><nd ref="82"/><nd ref="83"/><nd ref="84"/><nd ref="81"/>
    <tag k="place" v="quarter"/><tag k="name" v="Hafenviertel"/>
  </way>
  <way id="85" version="1">
    <nd ref="86"/><nd ref="87"/><nd ref="88"/><nd ref="89"/><nd ref="86"/>
  </way>
  <way id="90" version="1">
    <nd ref="91"/><nd ref="92"/><tag k="highway" v="motorway"/><tag k="ref" v="A 99"/>
  </way>
  <relation id="104" version="1">
    <member type="way" ref="85" role="outer"/>
    <tag k="type" v="multipolygon"/><tag k="leisure" v="park"/><tag k="name" v="Stadtpark"/>
  </relation>
  <way id="10" version="1">
    <nd ref="1"/><nd ref="2"/><nd ref="3"/>
  </way>
  <way id="11" version="1">
    <nd ref="1"/><nd ref="4"/><nd ref="3"/>
  </way>
  <way id="12" version="1">
    <nd ref="6"/><nd ref="7"/><nd ref="8"/><nd ref="9"/><nd ref="6"/>
  </way>
  <way id="20" version="1">
    <nd ref="21"/><nd ref="22"/><tag k="highway" v="residential"/><tag k="name" v="Hauptstraße"/>
  </way>
  <way id="21" version="1">
    <nd ref="22"/><nd ref="23"/><tag k="highway" v="residential"/><tag k="name" v="Hauptstraße"/>
  </way>
  <way id="22" version="1">
    <nd ref="24"/><nd ref="25"/><tag k="highway" v="residential"/><tag k="name" v="Hauptstraße"/>
  </way>
  <way id="30" version="1">
    <nd ref="31"/><nd ref="32"/><tag k="highway" v="primary"/><tag k="name" v="Ringstraße"/><tag k="ref" v="B 4"/>
  </way>
  <way id="31" version="1">
    <nd ref="33"/><nd ref="34"/><tag k="highway" v="primary"/><tag k="name" v="Ringstraße"/><tag k="ref" v="B 4"/>
  </way>
  <way id="40" version="1">
    <nd ref="21"/><nd ref="31"/><tag k="highway" v="footway"/>
  </way>
  <way id="51" version="1">
    <nd ref="52"/><nd ref="53"/><nd ref="54"/><nd ref="55"/><nd ref="52"/>
    <tag k="building" v="yes"/><tag k="addr:housenumber" v="14"/><tag k="addr:street" v="Hauptstraße"/>
    <tag k="addr:postcode" v="12345"/>
  </way>
  <way id="61" version="1">
    <nd ref="62"/><nd ref="63"/><nd ref="64"/><nd ref="65"/><nd ref="62"/>
    <tag k="building" v="retail"/><tag k="shop" v="supermarket"/><tag k="name" v="Markt"/>
  </way>
  <relation id="100" version="1">
    <member type="way" ref="11" role="outer"/>
    <member type="way" ref="10" role="outer"/>
    <member type="way" ref="12" role="inner"/>
    <member type="node" ref="5" role="label"/>
    <tag k="type" v="boundary"/><tag k="boundary" v="administrative"/><tag k="admin_level" v="8"/>
    <tag k="name" v="Testburg"/><tag k="name:en" v="Testborough"/><tag k="ISO3166-2" v="DE-TB"/>
  </relation>
  <relation id="101" version="1">
    <member type="way" ref="10" role="outer"/>
    <member type="way" ref="11" role="outer"/>
    <tag k="type" v="boundary"/><tag k="boundary" v="administrative"/><tag k="admin_level" v="2"/>
    <tag k="name" v="Testland"/><tag k="ISO3166-1" v="DE"/>
  </relation>
  <relation id="102" version="1">
    <member type="way" ref="12" role="outer"/>
    <tag k="type" v="boundary"/><tag k="boundary" v="postal_code"/><tag k="postal_code" v="12340"/>
  </relation>
  <relation id="103" version="1">
    <member type="way" ref="20" role="outer"/>
    <tag k="type" v="boundary"/><tag k="boundary" v="administrative"/><tag k="admin_level" v="8"/>
    <tag k="name" v="Broken"/>
  </relation>
</osm>
`

// osmium converts an OSM XML document to PBF with osmium-tool, skipping
// the test when the tool is absent (unless TESSERA_REQUIRE_TOOLS=1).
func osmium(t testing.TB, xml string, format string) string {
	t.Helper()
	bin, err := exec.LookPath("osmium")
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatalf("osmium (Debian osmium-tool) not found: %v", err)
		}
		t.Skip("osmium (Debian osmium-tool) not installed")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.osm")
	if err := os.WriteFile(in, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.osm.pbf")
	if b, err := exec.Command(bin, "cat", in, "-f", format, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("osmium cat: %v\n%s", err, b)
	}
	return out
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(discard{}, nil))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func byRef(t *testing.T, fs []sources.Feature, typ, ref string) sources.Feature {
	t.Helper()
	for _, f := range fs {
		if f.Type == typ && f.Ref == ref {
			return f
		}
	}
	t.Fatalf("no %s feature %s", typ, ref)
	return sources.Feature{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-7 }

func TestReadExtract(t *testing.T) {
	formats := []string{"pbf", "pbf,pbf_compression=none", "pbf,pbf_dense_nodes=false"}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			path := osmium(t, testOSM, format)
			fs, err := Read(context.Background(), path, Options{Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			checkExtract(t, fs)
		})
	}
}

func checkExtract(t *testing.T, fs []sources.Feature) {
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Type]++
	}
	want := map[string]int{"municipality": 1, "country": 1, "postal_code": 2, "locality": 1, "neighbourhood": 2,
		"road": 4, "address": 3, "poi": 3}
	for typ, n := range want {
		if counts[typ] != n {
			t.Errorf("%d %s features, want %d (all: %v)", counts[typ], typ, n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("types %v, want %v", counts, want)
	}
	// Read sorts by type then number.
	if !slices.IsSortedFunc(fs, func(a, b sources.Feature) int {
		if a.Type != b.Type {
			if a.Type < b.Type {
				return -1
			}
			return 1
		}
		return int(a.Num) - int(b.Num)
	}) {
		t.Error("features not sorted by type and number")
	}

	// The municipality: a square with a hole, outer counter-clockwise.
	m := byRef(t, fs, "municipality", "osm:relation/100")
	if m.Num != 100*4+3 || m.Name != "Testburg" || m.Names["en"] != "Testborough" || m.Country != "DE" {
		t.Errorf("municipality %d %q %v %q", m.Num, m.Name, m.Names, m.Country)
	}
	if m.Tags[TagKind] != "admin_area" || m.Tags[TagAdminLevel] != "8" || m.Tags[TagISO3166_2] != "DE-TB" ||
		m.Tags[TagPlaceDesignation] != "town" {
		t.Errorf("municipality tags %v", m.Tags)
	}
	if !near(m.Lon, 10.05) || !near(m.Lat, 50.05) {
		t.Errorf("municipality center %v,%v, want the label node 10.05,50.05", m.Lon, m.Lat)
	}
	poly, ok := m.Geometry.(orb.Polygon)
	if !ok || len(poly) != 2 {
		t.Fatalf("municipality geometry %T with %d rings, want a polygon with a hole", m.Geometry, len(poly))
	}
	for i, r := range poly {
		if len(r) != 5 || r[0] != r[len(r)-1] {
			t.Errorf("ring %d not a closed square: %v", i, r)
		}
	}
	if a := geo.SignedArea(poly[0]); !(a > 0) || math.Abs(a-0.01) > 1e-9 {
		t.Errorf("outer ring area %v, want +0.01 (counter-clockwise)", a)
	}
	if a := geo.SignedArea(poly[1]); !(a < 0) || math.Abs(a+0.0001) > 1e-9 {
		t.Errorf("hole area %v, want -0.0001 (clockwise)", a)
	}
	if b := poly.Bound(); b.Min != (orb.Point{10, 50}) || b.Max != (orb.Point{10.1, 50.1}) {
		t.Errorf("municipality bounds %v", b)
	}

	c := byRef(t, fs, "country", "osm:relation/101")
	if c.Country != "DE" || c.Name != "Testland" {
		t.Errorf("country %q %q", c.Country, c.Name)
	}
	if p, ok := c.Geometry.(orb.Polygon); !ok || len(p) != 1 || geo.SignedArea(p[0]) <= 0 {
		t.Errorf("country geometry %v", c.Geometry)
	}
	// No label: the centroid of the square.
	if !near(c.Lon, 10.05) || !near(c.Lat, 50.05) {
		t.Errorf("country center %v,%v", c.Lon, c.Lat)
	}

	// The postal code boundary and the code of the addresses.
	pc := byRef(t, fs, "postal_code", "osm:relation/102")
	if pc.Name != "12340" || !near(pc.Lon, 10.025) || !near(pc.Lat, 50.025) {
		t.Errorf("postal code relation %q at %v,%v", pc.Name, pc.Lon, pc.Lat)
	}
	if p, ok := pc.Geometry.(orb.Polygon); !ok || geo.SignedArea(p[0]) <= 0 {
		t.Errorf("postal code geometry %v", pc.Geometry)
	}
	pa := byRef(t, fs, "postal_code", "osm:addr:postcode=12345")
	// The mean of node 50 (10.051, 50.061) and building 51's centroid (10.053, 50.063).
	if pa.Name != "12345" || pa.Num != 1 || !near(pa.Lon, 10.052) || !near(pa.Lat, 50.062) {
		t.Errorf("postal code of addresses %q #%d at %v,%v", pa.Name, pa.Num, pa.Lon, pa.Lat)
	}

	// A place mapped as a closed way (drawn clockwise), a park as a
	// multipolygon relation, an unnamed motorway.
	q := byRef(t, fs, "neighbourhood", "osm:way/80")
	if q.Name != "Hafenviertel" || q.Tags[TagPlaceDesignation] != "quarter" || !near(q.Lon, 10.092) || !near(q.Lat, 50.092) {
		t.Errorf("quarter %+v", q)
	}
	if p, ok := q.Geometry.(orb.Polygon); !ok || len(p) != 1 || !(geo.SignedArea(p[0]) > 0) {
		t.Errorf("quarter geometry %v, want a counter-clockwise polygon", q.Geometry)
	}
	park := byRef(t, fs, "poi", "osm:relation/104")
	if park.Name != "Stadtpark" || !slices.Equal(park.Categories, []string{"park", "leisure"}) || park.Geometry != nil ||
		!near(park.Lon, 10.012) || !near(park.Lat, 50.012) || park.Tags["leisure"] != "park" {
		t.Errorf("park %+v", park)
	}
	mw := byRef(t, fs, "road", "osm:way/90")
	if mw.Name != "A 99" || mw.Tags[TagKind] != "road" {
		t.Errorf("motorway %+v", mw)
	}

	// Places.
	l := byRef(t, fs, "locality", "osm:node/5")
	if l.Name != "Testburg" || l.Population != 12000 || l.Tags[TagPlaceDesignation] != "town" || l.Tags[TagKind] != "place" {
		t.Errorf("locality %+v", l)
	}
	n := byRef(t, fs, "neighbourhood", "osm:node/70")
	if n.Name != "Altstadt" || n.Tags[TagPlaceDesignation] != "suburb" || !near(n.Lon, 10.045) || !near(n.Lat, 50.045) {
		t.Errorf("neighbourhood %+v", n)
	}

	// The street split in two ways is one line through node 22, centered
	// there; its namesake 50 km away is another feature.
	s := byRef(t, fs, "road", "osm:way/20")
	if s.Name != "Hauptstraße" || s.Num != 20*4+2 || s.Tags[TagKind] != "street" {
		t.Errorf("street %+v", s)
	}
	mls, ok := s.Geometry.(orb.MultiLineString)
	if !ok || len(mls) != 1 || len(mls[0]) != 3 {
		t.Fatalf("street geometry %v, want one joined line of 3 points", s.Geometry)
	}
	ends := []orb.Point{mls[0][0], mls[0][2]}
	if !slices.Contains(ends, orb.Point{10.04, 50.06}) || !slices.Contains(ends, orb.Point{10.06, 50.06}) || mls[0][1] != (orb.Point{10.05, 50.06}) {
		t.Errorf("street line %v", mls[0])
	}
	if !near(s.Lon, 10.05) || !near(s.Lat, 50.06) {
		t.Errorf("street center %v,%v, want 10.05,50.06", s.Lon, s.Lat)
	}
	far := byRef(t, fs, "road", "osm:way/22")
	if !near(far.Lon, 10.505) || !near(far.Lat, 50.5) {
		t.Errorf("far street center %v,%v", far.Lon, far.Lat)
	}
	// The dual carriageway (45 m apart, no shared node) merges: kind road.
	ring := byRef(t, fs, "road", "osm:way/30")
	if rm, ok := ring.Geometry.(orb.MultiLineString); !ok || len(rm) != 2 {
		t.Errorf("dual carriageway geometry %v, want 2 lines", ring.Geometry)
	}
	if ring.Tags[TagKind] != "road" || !slices.Contains(ring.Alternates, "B 4") {
		t.Errorf("dual carriageway kind %q alternates %v", ring.Tags[TagKind], ring.Alternates)
	}

	// Addresses.
	a := byRef(t, fs, "address", "osm:node/50")
	if a.Address != "12" || a.Name != "Hauptstraße" || a.Tags[TagPostcode] != "12345" || a.Tags[TagCity] != "Testburg" {
		t.Errorf("address %+v", a)
	}
	b := byRef(t, fs, "address", "osm:way/51")
	if b.Address != "14" || b.Name != "Hauptstraße" || !near(b.Lon, 10.053) || !near(b.Lat, 50.063) {
		t.Errorf("building address %+v", b)
	}
	ap := byRef(t, fs, "address", "osm:node/56")
	if ap.Address != "3a" || ap.Name != "Am Hof" {
		t.Errorf("addr:place address %+v", ap)
	}

	// POIs.
	cafe := byRef(t, fs, "poi", "osm:node/60")
	if cafe.Name != "Café Krümel" || cafe.Names["en"] != "Crumb Café" || !slices.Equal(cafe.Categories, []string{"cafe", "amenity"}) {
		t.Errorf("cafe %q %v %v", cafe.Name, cafe.Names, cafe.Categories)
	}
	for k, v := range map[string]string{"amenity": "cafe", "opening_hours": "Mo-Fr 08:00-18:00", "cuisine": "coffee_shop", "website": "https://example.org/"} {
		if cafe.Tags[k] != v {
			t.Errorf("cafe feature_tags[%s] = %q, want %q", k, cafe.Tags[k], v)
		}
	}
	shop := byRef(t, fs, "poi", "osm:way/61")
	if !slices.Equal(shop.Categories, []string{"supermarket", "shop"}) || !near(shop.Lon, 10.082) || !near(shop.Lat, 50.082) {
		t.Errorf("supermarket %v at %v,%v", shop.Categories, shop.Lon, shop.Lat)
	}
}

func TestReadTypesFilter(t *testing.T) {
	path := osmium(t, testOSM, "pbf")
	fs, err := Read(context.Background(), path, Options{Logger: quietLogger(), Types: []string{"poi", "postal_code"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Type+" "+f.Ref)
	}
	want := []string{"poi osm:node/60", "poi osm:way/61", "poi osm:relation/104", "postal_code osm:addr:postcode=12345", "postal_code osm:relation/102"}
	if !slices.Equal(got, want) {
		t.Errorf("features %v, want %v", got, want)
	}
}

func TestReadLimits(t *testing.T) {
	path := osmium(t, testOSM, "pbf")
	for _, o := range []Options{{MaxNodes: 3}, {MaxWayRefs: 5}, {MaxRelations: 1}, {MaxMembers: 1}, {MaxFeatures: 2}} {
		o.Logger = quietLogger()
		if _, err := Read(context.Background(), path, o); !errors.Is(err, ErrLimit) {
			t.Errorf("options %+v: error %v, want ErrLimit", o, err)
		}
	}
}

func TestReadStreamStopsOnError(t *testing.T) {
	path := osmium(t, testOSM, "pbf")
	stop := errors.New("stop")
	n := 0
	err := Scan(context.Background(), path, Options{Logger: quietLogger()}, func(sources.Feature) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("error %v after %d features", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, path, Options{Logger: quietLogger()}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	if _, err := Read(context.Background(), filepath.Join(t.TempDir(), "missing.osm.pbf"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzRead runs the whole reader (three passes, rings, street merging,
// postal codes) on arbitrary files: it must return features or an error,
// never panic, and every feature must have a name, a number and a center
// on the globe.
func FuzzRead(f *testing.F) {
	if bin, err := exec.LookPath("osmium"); err == nil {
		dir := f.TempDir()
		in, out := filepath.Join(dir, "in.osm"), filepath.Join(dir, "out.osm.pbf")
		if err := os.WriteFile(in, []byte(testOSM), 0o644); err != nil {
			f.Fatal(err)
		}
		// Uncompressed, so that mutations reach the elements.
		if b, err := exec.Command(bin, "cat", in, "-f", "pbf,pbf_compression=none", "-o", out).CombinedOutput(); err != nil {
			f.Fatalf("osmium: %v\n%s", err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	strs := []string{"", "highway", "residential", "name", "A", "type", "boundary", "administrative", "admin_level", "8", "outer"}
	block := testBlock{strs: strs,
		dense: []testNode{{id: 1, lat: 0, lon: 0}, {id: 2, lat: 0, lon: 10}, {id: 3, lat: 10, lon: 10}},
		ways:  []testWay{{id: 5, refs: []int64{1, 2, 3}, kv: []int64{1, 2, 3, 4}}, {id: 6, refs: []int64{3, 1}}},
		rels: []testRel{{id: 7, ids: []int64{5, 6}, types: []int64{1, 1}, roles: []int64{10, 10},
			kv: []int64{5, 6, 6, 7, 8, 9, 3, 4}}}}
	f.Add(append(testHeader(), testBlob("OSMData", block.encode(), blobRaw)...))
	path := filepath.Join(f.TempDir(), "fuzz.osm.pbf")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fs, err := Read(context.Background(), path, Options{Logger: quietLogger(), MaxNodes: 1 << 16,
			MaxWayRefs: 1 << 16, MaxFeatures: 1 << 16})
		if err != nil {
			return
		}
		for _, ft := range fs {
			if ft.Name == "" || ft.Num == 0 || ft.Type == "" || math.IsNaN(ft.Lon) || math.IsNaN(ft.Lat) ||
				ft.Lon < -180 || ft.Lon > 180 || ft.Lat < -90 || ft.Lat > 90 {
				t.Fatalf("bad feature %+v", ft)
			}
		}
	})
}
