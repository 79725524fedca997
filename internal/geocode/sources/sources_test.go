package sources

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadGeoNames(t *testing.T) {
	in := "2661604\tBasel\tBasel\tBale,Bâle,Basilea\t47.55839\t7.57327\tP\tPPLA\tCH\t\tBS\t1200\t\t\t164488\t\t260\tEurope/Zurich\t2019-09-05\n" +
		"# comment\n\n" +
		"1\tNowhere\tNowhere\t\t0\t0\tP\tPPL\tXX\t\t\t\t\t\t\t\t\t\t\n"
	got, err := ReadGeoNames(context.Background(), strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d places", len(got))
	}
	b := got[0]
	if b.GeonameID != 2661604 || b.Name != "Basel" || b.Lat != 47.55839 || b.Lon != 7.57327 || b.FeatureCode != "PPLA" ||
		b.Country != "CH" || b.Admin1 != "BS" || b.Admin2 != "1200" || b.Population != 164488 ||
		!slices.Equal(b.Alternates, []string{"Bale", "Bâle", "Basilea"}) {
		t.Errorf("parsed %+v", b)
	}
	if got[1].Population != 0 || got[1].Alternates != nil {
		t.Errorf("empty fields: %+v", got[1])
	}
	for name, bad := range map[string]string{
		"few columns": "1\tA\tA\n",
		"bad id":      "x\tA\tA\t\t0\t0\tP\tPPL\tCH\t\t\t\t\t\t0\n",
		"bad lat":     "1\tA\tA\t\t91\t0\tP\tPPL\tCH\t\t\t\t\t\t0\n",
		"bad pop":     "1\tA\tA\t\t1\t0\tP\tPPL\tCH\t\t\t\t\t\t-5\n",
	} {
		if _, err := ReadGeoNames(context.Background(), strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// moFile builds a little-endian catalog.
func moFile(pairs ...string) []byte {
	n := uint32(len(pairs) / 2)
	var hdr, tabs, blob []byte
	for _, v := range []uint32{0x950412de, 0, n, 28, 28 + 8*n, 0, 0} {
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	base := 28 + 16*n
	var orig, trans []byte
	for i := 0; i < len(pairs); i += 2 {
		for j, tab := range []*[]byte{&orig, &trans} {
			s := pairs[i+j]
			*tab = binary.LittleEndian.AppendUint32(*tab, uint32(len(s)))
			*tab = binary.LittleEndian.AppendUint32(*tab, base+uint32(len(blob)))
			blob = append(append(blob, s...), 0)
		}
	}
	tabs = append(orig, trans...)
	return append(append(hdr, tabs...), blob...)
}

func TestParseMO(t *testing.T) {
	m, err := ParseMO(moFile("", "Project-Id-Version: x", "1007311", "Durban", "AF.02", "Badachschan", "plural", "one\x00many"))
	if err != nil {
		t.Fatal(err)
	}
	if m["1007311"] != "Durban" || m["AF.02"] != "Badachschan" || m["plural"] != "one" || len(m) != 4 {
		t.Errorf("parsed %v", m)
	}
	for name, bad := range map[string][]byte{
		"short":     []byte("abc"),
		"magic":     make([]byte, 40),
		"truncated": moFile("a", "b")[:40],
	} {
		if _, err := ParseMO(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzParseMO(f *testing.F) {
	f.Add(moFile("a", "b", "1", "x"))
	f.Add([]byte{0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMO(data)
		if err == nil && len(m) > len(data) {
			t.Fatalf("%d strings from %d bytes", len(m), len(data))
		}
	})
}

func TestLocaleLang(t *testing.T) {
	for in, want := range map[string]string{"de": "de", "pt_BR": "pt", "ast": "", "sr@latin": "", "zh_CN": "zh"} {
		if got, _ := localeLang(in); got != want {
			t.Errorf("localeLang(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMergeCountryNames(t *testing.T) {
	cs := []Country{
		{Alpha2: "MX", Name: "MX", Names: map[string][]string{"en": {"Mexico"}, "gn": {"Méjiko"}}},
		{Alpha2: "MY", Name: "MY", Names: map[string][]string{"en": {"Malaysia"}}},
		{Alpha2: "US", Name: "US", Names: map[string][]string{"en": {"United States of America", "U.S."}}},
	}
	iso := map[string]map[string][]string{
		"MY": {"en": {"Malaysia"}, "gn": {"Mexico"}}, // a wrong translation
		"US": {"en": {"United States", "United States of America"}, "fr": {"États-Unis"}},
	}
	codes := map[string]map[string]string{"MY": {"de": "Malaysia"}, "MX": {"de": "Mexiko"}}
	mergeCountryNames(cs, codes, iso)
	if slices.Contains(cs[1].Names["gn"], "Mexico") {
		t.Errorf("foreign name kept: %v", cs[1].Names)
	}
	if cs[2].Name != "United States" || cs[2].Names["fr"][0] != "États-Unis" || cs[0].Names["de"][0] != "Mexiko" {
		t.Errorf("names %+v %+v", cs[2], cs[0])
	}
}

func TestReadISOCodesAndAdmins(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("usr/share/iso-codes/json/iso_3166-1.json", `{"3166-1":[{"alpha_2":"CH","name":"Switzerland","official_name":"Swiss Confederation"}]}`)
	write("usr/share/iso-codes/json/iso_3166-2.json", `{"3166-2":[{"code":"CH-BS","name":"Basel-Stadt"},{"code":"bad","name":"x"},
		{"code":"CH-TI","name":"Ticino"}]}`)
	write("usr/share/locale/it/LC_MESSAGES/iso_3166-1.mo", string(moFile("Switzerland", "Svizzera")))
	write("usr/share/locale/it/LC_MESSAGES/iso_3166-2.mo", string(moFile("Basel-Stadt", "Basilea Città", "Ticino", "Canton Ticino")))
	countries, subs, err := ReadISOCodes(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(countries["CH"]["it"], []string{"Svizzera"}) || !slices.Equal(countries["CH"]["en"], []string{"Switzerland", "Swiss Confederation"}) {
		t.Errorf("countries %v", countries)
	}
	if len(subs["CH"]) != 2 || subs["CH"][0].Names["it"] != "Basilea Città" {
		t.Errorf("subdivisions %v", subs)
	}
	admins := []Admin{{Code: "CH.BS", Name: "Basel-Stadt"}, {Code: "CH.ZH", Name: "Zurich"}, {Code: "CH.TI", Name: "Canton of Ticino"}}
	mergeAdminNames(admins, map[string]map[string]string{"CH.ZH": {"de": "Zürich"}}, subs)
	if admins[0].Names["it"] != "Basilea Città" || admins[1].Names["de"] != "Zürich" || admins[2].Names["it"] != "Canton Ticino" {
		t.Errorf("admins %+v", admins)
	}
}

func TestReadCountryLanguages(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "countries.min.json"), []byte(`{"DE":{"name":"Germany","languages":["de"]},"ch":{"languages":["de","fr","it"]},"AQ":{"languages":[]},"XYZ":{"languages":["en"]}}`), 0o644)
	got, err := ReadCountryLanguages(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["DE"][0] != "de" || len(got["CH"]) != 3 || got["CH"][0] != "de" {
		t.Errorf("languages: %v", got)
	}
	os.WriteFile(filepath.Join(dir, "countries.min.json"), []byte(`[`), 0o644)
	if _, err := ReadCountryLanguages(dir); err == nil {
		t.Error("broken JSON accepted")
	}
	if _, err := ReadCountryLanguages(t.TempDir()); err == nil {
		t.Error("a missing file accepted")
	}
}

func TestMergeFrance(t *testing.T) {
	ds := &Dataset{Places: []Place{
		{GeonameID: 1, Name: "Lyon", FeatureClass: "P", FeatureCode: "PPLA", Country: "FR", Admin1: "84", Admin2: "69", Admin4: "69123", Lat: 45.75, Lon: 4.85, Population: 500000},
		{GeonameID: 2, Name: "Lyon 03", FeatureClass: "P", FeatureCode: "PPLX", Country: "FR", Admin2: "69", Admin4: "69123", Lat: 45.76, Lon: 4.85},
		{GeonameID: 3, Name: "Villeurbane", FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Admin2: "69", Admin4: "", Lat: 45.77, Lon: 4.88},
		{GeonameID: 4, Name: "Bourg", FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Admin2: "01", Admin4: "01053", Lat: 46.2, Lon: 5.22},
		{GeonameID: 5, Name: "Lyon", FeatureClass: "P", FeatureCode: "PPL", Country: "US", Lat: 1, Lon: 1},
		// GeoNames files this commune under Lyon's code, before Lyon.
		{GeonameID: 6, Name: "Tassin-la-Demi-Lune", FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Admin2: "69", Admin4: "69123", Lat: 45.76, Lon: 4.78, Population: 16920},
		{GeonameID: 7, Name: "Vieux-Bourg", FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Admin2: "01", Admin4: "01999", Lat: 46.1, Lon: 5.1, Population: 900},
	}}
	ds.Places[0], ds.Places[5] = ds.Places[5], ds.Places[0]
	communes := []Commune{
		{Code: "69123", Name: "Lyon", Type: "commune-actuelle", Departement: "69", Region: "84", Arrondissement: "691", Population: 519127, Postcodes: []string{"69001", "69003"}},
		{Code: "69383", Name: "Lyon 3e Arrondissement", Type: "arrondissement-municipal", Parent: "69123", Departement: "69", Population: 100679, Postcodes: []string{"69003"}},
		{Code: "69381", Name: "Lyon 1er Arrondissement", Type: "arrondissement-municipal", Parent: "69123", Departement: "69", Population: 28717, Postcodes: []string{"69001"}},
		{Code: "69266", Name: "Villeurbane", Type: "commune-actuelle", Departement: "69", Region: "84", Arrondissement: "691", Population: 150000, Postcodes: []string{"69100"}},
		{Code: "69999", Name: "Petit-Village", Type: "commune-actuelle", Departement: "69", Region: "84", Arrondissement: "691", Population: 90, Postcodes: []string{"69100"}},
		{Code: "69998", Name: "Écart", Type: "commune-actuelle", Departement: "69", Region: "84", Arrondissement: "691", Population: 20, Postcodes: []string{"69990"}},
		{Code: "69244", Name: "Tassin-la-Demi-Lune", Type: "commune-actuelle", Departement: "69", Region: "84", Arrondissement: "691", Population: 22000, Postcodes: []string{"69160"}},
		{Code: "01999", Name: "Val-Nouveau", Type: "commune-actuelle", Departement: "01", Region: "84", Arrondissement: "011", Population: 3000, Postcodes: []string{"01999"}},
		{Code: "2A004", Name: "Ajaccio", Type: "commune-actuelle", Departement: "2A", Region: "94", Arrondissement: "2A1", Population: 70000, Postcodes: []string{"20000"}},
	}
	postcodes := map[string][]string{"69001": {"69381"}, "69003": {"69383"}, "69100": {"69266", "69999"}, "69990": {"69998"}, "20000": {"2A004"}}
	MergeFrance(ds, communes, postcodes)
	byName := map[string]*Place{}
	for i := range ds.Places {
		if ds.Places[i].Country == "FR" {
			byName[ds.Places[i].Name] = &ds.Places[i]
		}
	}
	lyon := byName["Lyon"]
	if lyon == nil || lyon.GeonameID != 1 || lyon.Population != 519127 || !slices.Equal(lyon.Postcodes, []string{"69001", "69003"}) ||
		lyon.PositionSource != PositionGeoNames || lyon.DataSource != "insee:69123" {
		t.Errorf("Lyon: %+v", lyon)
	}
	if p := byName["Tassin-la-Demi-Lune"]; p == nil || p.GeonameID != 6 || p.Admin4 != "69244" || p.Population != 22000 {
		t.Errorf("a commune GeoNames files under another's code is itself: %+v", p)
	}
	if p := byName["Val-Nouveau"]; p == nil || p.GeonameID != 7 || !slices.Contains(p.Alternates, "Vieux-Bourg") {
		t.Errorf("a new commune takes the GeoNames place filed under its code: %+v", p)
	}
	if a := byName["Lyon 3e Arrondissement"]; a == nil || a.GeonameID != 2 || !slices.Contains(a.Alternates, "Lyon 03") || !slices.Contains(a.Alternates, "Lyon 3e") {
		t.Errorf("Lyon 3e matched to GeoNames' Lyon 03: %+v", a)
	}
	if a := byName["Lyon 1er Arrondissement"]; a == nil || a.PositionSource != PositionCommune || a.Lat != 45.75 || a.FeatureCode != "PPLX" || PlaceRef(a) != "insee:69381" {
		t.Errorf("Lyon 1er placed at its commune: %+v", a)
	}
	if v := byName["Villeurbane"]; v == nil || v.GeonameID != 3 || v.Admin4 != "69266" {
		t.Errorf("matched by name and département: %+v", v)
	}
	if p := byName["Petit-Village"]; p == nil || p.PositionSource != PositionPostcode || p.Lat != 45.77 || p.Lon != 4.88 {
		t.Errorf("placed at its postcode's communes: %+v", p)
	}
	if p := byName["Écart"]; p == nil || p.PositionSource != PositionArrondissement {
		t.Errorf("placed at its arrondissement's communes: %+v", p)
	}
	if byName["Ajaccio"] != nil {
		t.Errorf("a commune with no placed neighbour is left out: %+v", byName["Ajaccio"])
	}
	if n, ok := communeNum("2A004"); !ok || n != 3_000_096_004 {
		t.Errorf("communeNum(2A004) = %d, %v", n, ok)
	}
	pcs := map[string]Feature{}
	for _, f := range ds.Features {
		pcs[f.Name] = f
	}
	if f := pcs["69003"]; f.Type != "postal_code" || f.Num != 250069003 || f.Locality != "geonames:2" ||
		!slices.Equal(f.Covers, []string{"geonames:2", "geonames:1"}) {
		t.Errorf("69003: %+v", f)
	}
	if f := pcs["69100"]; f.Locality != "geonames:3" || len(f.Covers) != 2 || f.Population != 150090 {
		t.Errorf("69100 at its most populous commune, covering both: %+v", f)
	}
	if _, ok := pcs["20000"]; ok {
		t.Error("a postcode with no placed commune is left out")
	}
}

func TestParseUSZips(t *testing.T) {
	got, err := parseUSZips([]byte("module.exports = [\n  {\"latitude\":40.75065,\"longitude\":-73.997293,\"zipCode\":\"10001\"},\n  {\"latitude\":18.1,\"longitude\":-66.9,\"zipCode\":\"00601\"},\n]\n"))
	if err != nil || len(got) != 2 || got[0] != (ZIP{"10001", 40.75065, -73.997293}) || got[1].Code != "00601" {
		t.Fatalf("%+v %v", got, err)
	}
	for name, bad := range map[string]string{
		"empty":   "module.exports = []",
		"bad lat": "{\"latitude\":95,\"longitude\":1,\"zipCode\":\"10001\"}",
	} {
		if _, err := parseUSZips([]byte(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ds := &Dataset{}
	AddUSZips(ds, got)
	if len(ds.Features) != 2 || ds.Features[0].Name != "00601" || ds.Features[0].Num != 840000601 || ds.Features[1].Country != "US" {
		t.Errorf("features %+v", ds.Features)
	}
}

func FuzzParseUSZips(f *testing.F) {
	f.Add([]byte("{\"latitude\":40.75065,\"longitude\":-73.997293,\"zipCode\":\"10001\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		zips, err := parseUSZips(b)
		for _, z := range zips {
			if err != nil || len(z.Code) != 5 || z.Lat < -90 || z.Lat > 90 || z.Lon < -180 || z.Lon > 180 {
				t.Fatalf("bad row %+v (err %v)", z, err)
			}
		}
	})
}

func TestMergeCentres(t *testing.T) {
	ds := &Dataset{Places: []Place{
		{GeonameID: 1, Name: "Tychy", ASCIIName: "Tychy", FeatureClass: "P", FeatureCode: "PPL", Country: "PL", Lat: 50.1372, Lon: 18.9664},
		{GeonameID: 2, Name: "Łódź", ASCIIName: "Lodz", FeatureClass: "P", FeatureCode: "PPLA", Country: "PL", Lat: 51.77, Lon: 19.47},
		{GeonameID: 3, Name: "Far", FeatureClass: "P", FeatureCode: "PPL", Country: "PL", Lat: 50, Lon: 20},
		{GeonameID: 4, Name: "Village", FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Lat: 45, Lon: 5, PositionSource: PositionPostcode},
		{GeonameID: 5, Name: "Tychy", FeatureClass: "P", FeatureCode: "PPL", Country: "CZ", Lat: 50.1, Lon: 18.9},
	}}
	MergeCentres(ds, []Town{
		{Name: "Tychy", ASCII: "Tychy", Country: "PL", Lat: 50.1236, Lon: 18.9867},
		{Name: "Lodz", ASCII: "Lodz", Country: "PL", Lat: 51.7769, Lon: 19.4547},
		{Name: "Far", Country: "PL", Lat: 50.2, Lon: 20}, // 22 km away: another place
		{Name: "Village", Country: "FR", Lat: 45.05, Lon: 5.05},
	})
	p := ds.Places
	if p[0].PositionSource != PositionAverage || math.Abs(p[0].Lat-50.1304) > 1e-9 || math.Abs(p[0].Lon-18.97655) > 1e-9 {
		t.Errorf("Tychy averaged: %+v", p[0])
	}
	if p[1].PositionSource != PositionAverage {
		t.Errorf("Łódź found by its ASCII name: %+v", p[1])
	}
	if p[2].PositionSource != "" || p[2].Lat != 50 {
		t.Errorf("a namesake 22 km away is another place: %+v", p[2])
	}
	if p[3].PositionSource != PositionSimple || p[3].Lat != 45.05 {
		t.Errorf("an estimated commune takes the town's point: %+v", p[3])
	}
	if p[4].Lat != 50.1 {
		t.Errorf("another country's namesake moved: %+v", p[4])
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Bielsko-Biała", "Bielsko-Biala", true},
		{"Jastrzębie-Zdrój", "Jastrzębie Zdrój", true},
		{"Frankfurt (Oder)", "Frankfurt Oder", true},
		{"Bielsko-Biala", "Bielsko-Biała", false},
		{"Frankfurt", "Frankfurt am Main", false},
		{"Lodz", "Łódź", false},
	} {
		if got := fullerForm(tc.a, tc.b); got != tc.want {
			t.Errorf("fullerForm(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
	ds = &Dataset{Places: []Place{{GeonameID: 1, Name: "Bielsko-Biala", FeatureClass: "P", FeatureCode: "PPL", Country: "PL", Lat: 49.82, Lon: 19.04}}}
	MergeCentres(ds, []Town{{Name: "Bielsko-Biała", ASCII: "Bielsko-Biala", Country: "PL", Lat: 49.82, Lon: 19.05}})
	if p := ds.Places[0]; p.Name != "Bielsko-Biała" || !slices.Contains(p.Alternates, "Bielsko-Biala") {
		t.Errorf("the fuller form is the name: %+v", p)
	}
}

// FuzzNationalData feeds any bytes to the readers of the national data and
// the merges: no panic, and every place and postal code they make lies on
// the globe with a country.
func FuzzNationalData(f *testing.F) {
	f.Add([]byte(`[{"code":"69123","nom":"Lyon","type":"commune-actuelle","departement":"69","region":"84","arrondissement":"691","population":5,"codesPostaux":["69001"]}]`),
		[]byte(`[{"codePostal":"69001","codeCommune":"69123"}]`),
		[]byte(`[{"city":"Lyon","city_ascii":"Lyon","lat":"45.7","lng":"4.8","iso2":"FR"}]`))
	f.Add([]byte(`[{"code":"2B001","nom":"A","type":"arrondissement-municipal","commune":"2B001","departement":"972"}]`),
		[]byte(`[{"codePostal":"x","codeCommune":"2B001"}]`), []byte(`[{"city":"A","lat":"NaN","lng":"1e400","iso2":"FR"}]`))
	f.Fuzz(func(t *testing.T, communesJSON, postcodesJSON, townsJSON []byte) {
		communes, err1 := parseCommunes(communesJSON)
		postcodes, err2 := parsePostcodes(postcodesJSON)
		towns, err3 := parseWorldCities(townsJSON)
		if err1 != nil || err2 != nil || err3 != nil {
			return
		}
		ds := &Dataset{Places: []Place{{GeonameID: 1, Name: "Lyon", FeatureClass: "P", FeatureCode: "PPLA", Country: "FR",
			Admin2: "69", Admin4: "69123", Lat: 45.75, Lon: 4.85}}}
		MergeFrance(ds, communes, postcodes)
		MergeCentres(ds, towns)
		alignPostcodes(ds)
		for _, tw := range towns {
			if !(tw.Lat >= -90 && tw.Lat <= 90 && tw.Lon >= -180 && tw.Lon <= 180) {
				t.Fatalf("town %+v", tw)
			}
		}
		for _, p := range ds.Places {
			if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) || p.Country == "" {
				t.Fatalf("place %+v", p)
			}
		}
		for _, f := range ds.Features {
			if !(f.Lat >= -90 && f.Lat <= 90 && f.Lon >= -180 && f.Lon <= 180) || f.Country == "" || f.Name == "" {
				t.Fatalf("feature %+v", f)
			}
		}
	})
}
