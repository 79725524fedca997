package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// nameLanguages are the languages whose country names go into the countries
// and country_labels layers as name_<lang>, when the i18n-iso-countries
// package has them.
var nameLanguages = []string{"en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja", "ko", "ar"}

// country is one ISO 3166-1 country.
type country struct {
	Alpha2, Alpha3, Numeric string
	// Names maps a language code to the country's name in that language.
	Names map[string]string
}

// countryTable maps ISO 3166-1 numeric codes ("528") to countries.
type countryTable map[string]*country

// maxCodesFile bounds the size of one JSON file read from the package.
const maxCodesFile = 8 << 20

func readJSONFile(path string, v any) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() > maxCodesFile {
		return fmt.Errorf("%s: file larger than %d bytes", path, maxCodesFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// loadCountryTable reads codes.json (rows of [alpha-2, alpha-3, numeric,
// ...]) and langs/<lang>.json ({"countries": {alpha-2: name or [names]}})
// from the folder of the npm package i18n-iso-countries.
func loadCountryTable(dir string) (countryTable, error) {
	var rows [][]string
	if err := readJSONFile(filepath.Join(dir, "codes.json"), &rows); err != nil {
		return nil, fmt.Errorf("country codes: %w", err)
	}
	table := countryTable{}
	byAlpha2 := map[string]*country{}
	for i, r := range rows {
		if len(r) < 3 || len(r[0]) != 2 || len(r[1]) != 3 || len(r[2]) != 3 {
			return nil, fmt.Errorf("country codes: row %d is %q, want [alpha-2, alpha-3, numeric, ...]", i, r)
		}
		c := &country{Alpha2: r[0], Alpha3: r[1], Numeric: r[2], Names: map[string]string{}}
		table[c.Numeric] = c
		byAlpha2[c.Alpha2] = c
	}
	if len(table) == 0 {
		return nil, fmt.Errorf("country codes: no countries in %s", dir)
	}
	for _, lang := range nameLanguages {
		var doc struct {
			Countries map[string]json.RawMessage `json:"countries"`
		}
		path := filepath.Join(dir, "langs", lang+".json")
		if err := readJSONFile(path, &doc); err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("country names: %w", err)
		}
		for a2, raw := range doc.Countries {
			c := byAlpha2[a2]
			if c == nil {
				continue
			}
			if name := firstName(raw); name != "" {
				c.Names[lang] = name
			}
		}
	}
	return table, nil
}

// firstName returns a name given as a string or the first of a list (the
// official name, in i18n-iso-countries' order).
func firstName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return strings.TrimSpace(list[0])
	}
	return ""
}

// lookup returns the country with the numeric code id (as world-atlas gives
// it, possibly without leading zeros), or nil.
func (t countryTable) lookup(id string) *country {
	if id == "" || len(id) > 3 {
		return nil
	}
	return t[strings.Repeat("0", 3-len(id))+id]
}
