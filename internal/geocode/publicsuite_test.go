package geocode

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"golang.org/x/text/unicode/norm"
)

// The public suite: the city-level cases of geocoder-tester, a test suite
// other geocoders are judged by (testdata/geocoder-tester, MIT; see its
// README.md for the files and the scoring rules, which are ours: the
// suite's own runner is not used). The project's own cases
// (testdata/geocode-cases) have the same format, with expected_type.

// suiteCase is one row of a suite file.
type suiteCase struct {
	file, query string
	reverse     bool
	lon, lat    float64 // reverse point, or forward proximity (hasPoint)
	hasPoint    bool
	limit       int
	lang        string
	name        string    // expected_name
	country     string    // expected_country
	city        string    // expected_city
	postcode    string    // expected_postcode
	typ         string    // expected_type (a place type)
	coord       []float64 // lat, lon, metres
}

// loadSuite reads the case files (*.csv) of a folder of testdata.
func loadSuite(t testing.TB, folder string) []suiteCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", folder, "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files: %v", err)
	}
	var out []suiteCase
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(string(data), "\n")
		r := csv.NewReader(strings.NewReader(string(data)))
		r.Comma = ','
		if strings.Count(header, ";") > strings.Count(header, ",") {
			r.Comma = ';'
		}
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[strings.TrimSpace(h)] = i
		}
		get := func(row []string, k string) string {
			if i, ok := col[k]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		for _, row := range rows[1:] {
			c := suiteCase{file: filepath.Base(path), query: get(row, "query"), lang: get(row, "lang"),
				name: get(row, "expected_name"), country: get(row, "expected_country"), city: get(row, "expected_city"),
				postcode: get(row, "expected_postcode"), typ: get(row, "expected_type"), limit: 1}
			if n, err := strconv.Atoi(get(row, "limit")); err == nil && n > 0 {
				c.limit = n
			}
			lat, err1 := strconv.ParseFloat(get(row, "lat"), 64)
			lon, err2 := strconv.ParseFloat(get(row, "lon"), 64)
			if err1 == nil && err2 == nil {
				c.lat, c.lon, c.hasPoint = lat, lon, true
			}
			c.reverse = c.query == "" && c.hasPoint
			if v := get(row, "expected_coordinate"); v != "" {
				for _, s := range strings.Split(v, ",") {
					f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
					if err != nil {
						t.Fatalf("%s: coordinate %q", path, v)
					}
					c.coord = append(c.coord, f)
				}
				if len(c.coord) != 3 {
					t.Fatalf("%s: coordinate %q", path, v)
				}
			}
			if c.query == "" && !c.reverse {
				t.Fatalf("%s: row without query or point: %v", path, row)
			}
			out = append(out, c)
		}
	}
	return out
}

// sameText compares names as the suite expects them: case aside, with
// their diacritics and punctuation.
func sameText(a, b string) bool {
	return strings.EqualFold(norm.NFC.String(strings.TrimSpace(a)), norm.NFC.String(strings.TrimSpace(b)))
}

// suitePass reports whether feature f answers case c.
func suitePass(c suiteCase, f Feature) bool {
	text := f.Text
	for _, l := range f.Localized {
		if l.Lang == c.lang {
			text = l.Text
		}
	}
	if c.name != "" && !sameText(text, c.name) {
		return false
	}
	if c.typ != "" && f.PlaceType[0] != c.typ {
		return false
	}
	if c.country != "" {
		ok := false
		for _, cx := range f.Context {
			if strings.HasPrefix(cx.ID, "country.") && sameText(cx.Text, c.country) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	if c.city != "" {
		ok := f.PlaceType[0] == "locality" && sameText(text, c.city)
		for _, cx := range f.Context {
			if strings.HasPrefix(cx.ID, "locality.") && sameText(cx.Text, c.city) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	if c.postcode != "" && !slices.Contains(f.Properties.Postcodes, c.postcode) &&
		!(f.PlaceType[0] == "postal_code" && f.Text == c.postcode) {
		return false
	}
	if len(c.coord) == 3 && haversineKM(orb.Point{c.coord[1], c.coord[0]}, orb.Point{f.Center[0], f.Center[1]})*1000 > c.coord[2] {
		return false
	}
	return true
}

// runSuiteCase answers one case and says whether it passed, with what the
// first result was.
func runSuiteCase(t testing.TB, ix *Index, c suiteCase) (bool, string) {
	vals := url.Values{}
	path := url.PathEscape(c.query)
	if c.reverse {
		path = fmt.Sprintf("%g,%g", c.lon, c.lat)
		vals.Set("types", "locality")
	} else {
		vals.Set("limit", strconv.Itoa(min(10, max(c.limit, 1))))
		if c.hasPoint {
			vals.Set("proximity", fmt.Sprintf("%g,%g", c.lon, c.lat))
		}
	}
	if c.lang != "" {
		vals.Set("language", c.lang)
	}
	req, err := ParseRequest(path+".json", vals, "")
	if err != nil {
		t.Fatalf("%s %q: %v", c.file, c.query, err)
	}
	res, err := ix.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %q: %v", c.file, c.query, err)
	}
	feats := res.Features
	if len(feats) > c.limit && !c.reverse {
		feats = feats[:c.limit]
	}
	for _, f := range feats {
		if suitePass(c, f) {
			return true, ""
		}
	}
	got := "nothing"
	if len(res.Features) > 0 {
		f := res.Features[0]
		got = fmt.Sprintf("%q %s (%.4f,%.4f) %v", f.Text, f.ID, f.Center[1], f.Center[0], f.Properties.Postcodes)
	}
	return false, got
}

// minSuitePass is the share of the public suite's city-level cases the
// index answers (the level reached, 0.859; the issue asks for 0.75).
const minSuitePass = 0.85

// TestPublicSuite runs the city-level cases of geocoder-tester on the real
// index and guards the pass rate reached.
func TestPublicSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	rates := runSuite(t, loadSuite(t, "geocoder-tester"))
	if rates["all"] < minSuitePass {
		t.Errorf("public suite: %.3f of the city-level cases pass, want at least %.2f", rates["all"], minSuitePass)
	}
}

// minCaseRates are the levels reached on the project's own cases
// (testdata/geocode-cases, one file per cause of issue 22).
var minCaseRates = map[string]float64{
	"missing_places.csv": 1, "postcodes.csv": 1, "names.csv": 1, "ranking.csv": 0.9,
}

// TestProjectCases runs the project's cases of every cause of issue 22
// (places missing, postcodes, ranking, names) and guards each file's
// level.
func TestProjectCases(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	rates := runSuite(t, loadSuite(t, "geocode-cases"))
	for file, min := range minCaseRates {
		if got, ok := rates[file]; !ok || got < min {
			t.Errorf("%s: %.3f of the cases pass, want at least %.2f", file, got, min)
		}
	}
}

// runSuite runs the cases, logs the misses and the table, and returns the
// pass rate per file and in all ("all").
func runSuite(t *testing.T, cases []suiteCase) map[string]float64 {
	ix := openRealIndex(t)
	type tally struct{ n, ok int }
	per := map[string]*tally{}
	var total tally
	for _, c := range cases {
		ok, got := runSuiteCase(t, ix, c)
		tl := per[c.file]
		if tl == nil {
			tl = &tally{}
			per[c.file] = tl
		}
		tl.n++
		total.n++
		if ok {
			tl.ok++
			total.ok++
			continue
		}
		want := c.name + c.city
		if c.postcode != "" {
			want += " " + c.postcode
		}
		t.Logf("miss %s: %q (%s) want %q got %s", c.file, c.query, c.lang, want, got)
	}
	files := make([]string, 0, len(per))
	for f := range per {
		files = append(files, f)
	}
	slices.Sort(files)
	rates := map[string]float64{}
	var b strings.Builder
	for _, f := range files {
		rates[f] = float64(per[f].ok) / float64(per[f].n)
		fmt.Fprintf(&b, "\n%-36s %4d %4d %.3f", f, per[f].n, per[f].ok, rates[f])
	}
	rates["all"] = float64(total.ok) / float64(total.n)
	fmt.Fprintf(&b, "\n%-36s %4d %4d %.3f", "all", total.n, total.ok, rates["all"])
	t.Log(b.String())
	return rates
}
