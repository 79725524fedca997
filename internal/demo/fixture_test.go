package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The synthetic world used by the tests: three countries side by side
// between 40°N and 50°N — "Westland" (ISO 250, 0..10°E, with an island at
// 2..4°E 30..32°N), "Eastland" (ISO 276, 10..20°E) and "Noland" (no ISO
// code, 20..25°E) — and land covering all three with a lake at 5..6°E
// 44..45°N, plus the island.
const testCountries = `{
  "type": "Topology",
  "bbox": [0, 30, 25, 50],
  "objects": {"countries": {"type": "GeometryCollection", "geometries": [
    {"type": "MultiPolygon", "id": "250", "properties": {"name": "Westland"}, "arcs": [[[2, 0]], [[6]]]},
    {"type": "Polygon", "id": "276", "properties": {"name": "Eastland"}, "arcs": [[3, 1, 4, -1]]},
    {"type": "Polygon", "properties": {"name": "Noland"}, "arcs": [[5, 1]]}
  ]}},
  "arcs": [
    [[10, 40], [10, 50]],
    [[20, 40], [20, 50]],
    [[10, 50], [0, 50], [0, 40], [10, 40]],
    [[10, 40], [20, 40]],
    [[20, 50], [10, 50]],
    [[20, 50], [25, 50], [25, 40], [20, 40]],
    [[2, 30], [2, 32], [4, 32], [4, 30], [2, 30]]
  ]
}`

const testLand = `{
  "type": "Topology",
  "transform": {"scale": [0.001, 0.001], "translate": [0, 30]},
  "objects": {"land": {"type": "GeometryCollection", "geometries": [
    {"type": "MultiPolygon", "arcs": [[[0], [1]], [[2]]]}
  ]}},
  "arcs": [
    [[0, 10000], [0, 10000], [25000, 0], [0, -10000], [-25000, 0]],
    [[5000, 14000], [1000, 0], [0, 1000], [-1000, 0], [0, -1000]],
    [[2000, 0], [0, 2000], [2000, 0], [0, -2000], [-2000, 0]]
  ]
}`

var testCodes = `[
  ["FR", "FRA", "250", "ISO 3166-2:FR"],
  ["DE", "DEU", "276", "ISO 3166-2:DE"],
  ["NL", "NLD", "528", "ISO 3166-2:NL"]
]`

var testNames = map[string]string{
	"en": `{"locale": "en", "countries": {"FR": "France", "DE": "Germany", "NL": ["Netherlands", "Holland"]}}`,
	"de": `{"locale": "de", "countries": {"FR": "Frankreich", "DE": "Deutschland", "NL": "Niederlande"}}`,
}

// testPlaces are GeoNames rows: a national capital, a large town, a village,
// a historical place (skipped) and a non-populated feature (skipped).
var testPlaces = []string{
	"1001\tWestcity\tWestcity\tWc,Westville\t45.0\t5.0\tP\tPPLC\tFR\t\t11\t\t\t\t2100000\t\t35\tEurope/Paris\t2024-01-01",
	"1002\tEaststadt\tEaststadt\t\t45.5\t15.0\tP\tPPLA\tDE\t\t01\t\t\t\t120000\t\t50\tEurope/Berlin\t2024-01-01",
	"1003\tKlein Dörfchen\tKlein Dorfchen\t\t41.0\t12.0\tP\tPPL\tDE\t\t01\t\t\t\t800\t\t50\tEurope/Berlin\t2024-01-01",
	"1004\tOld Town\tOld Town\t\t46.0\t6.0\tP\tPPLH\tFR\t\t11\t\t\t\t5000\t\t35\tEurope/Paris\t2024-01-01",
	"1005\tSome Hill\tSome Hill\t\t46.0\t7.0\tT\tHLL\tFR\t\t11\t\t\t\t0\t\t35\tEurope/Paris\t2024-01-01",
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTestPackages writes the synthetic packages in the layout of the npm
// packages and returns Options.PackageDirs for them.
func writeTestPackages(t *testing.T) map[string]string {
	t.Helper()
	root := t.TempDir()
	atlas := filepath.Join(root, "world-atlas")
	writeFile(t, filepath.Join(atlas, countriesFile), testCountries)
	writeFile(t, filepath.Join(atlas, landFile), testLand)
	codes := filepath.Join(root, "i18n-iso-countries")
	writeFile(t, filepath.Join(codes, "codes.json"), testCodes)
	for lang, doc := range testNames {
		writeFile(t, filepath.Join(codes, "langs", lang+".json"), doc)
	}
	cities := filepath.Join(root, "cities")
	writeFile(t, filepath.Join(cities, filepath.FromSlash(citiesFile)), strings.Join(testPlaces, "\n")+"\n")
	return map[string]string{WorldAtlasSpec: atlas, CountryCodesSpec: codes, CitiesSpec: cities}
}
