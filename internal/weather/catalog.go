package weather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// Catalog is the document of /weather/latest.json.
type Catalog struct {
	Variables []Variable `json:"variables"`
}

// Variable is one variable of the catalog: the latest ingested run.
type Variable struct {
	SpatialRefSys SpatialRefSys    `json:"spatial_ref_sys"`
	Bounds        [4]float64       `json:"bounds"`
	TileFormat    string           `json:"tile_format"`
	TileMatrixSet TileMatrixSet    `json:"tile_matrix_set"`
	Metadata      VariableMetadata `json:"metadata"`
	Keyframes     []Keyframe       `json:"keyframes"`
}

// SpatialRefSys names the tiles' coordinate system.
type SpatialRefSys struct {
	AuthName string `json:"auth_name"`
	AuthSRID string `json:"auth_srid"`
	WKT      string `json:"wkt"`
}

// TileMatrixSet describes the tile grid of every zoom.
type TileMatrixSet struct {
	Bounds [4]float64   `json:"bounds"`
	Items  []TileMatrix `json:"items"`
}

// TileMatrix is one zoom of the tile grid.
type TileMatrix struct {
	ZoomLevel    int     `json:"zoom_level"`
	MatrixWidth  int     `json:"matrix_width"`
	MatrixHeight int     `json:"matrix_height"`
	TileWidth    int     `json:"tile_width"`
	TileHeight   int     `json:"tile_height"`
	PixelXSize   float64 `json:"pixel_x_size"`
	PixelYSize   float64 `json:"pixel_y_size"`
}

// VariableMetadata holds metadata.weather_variable.
type VariableMetadata struct {
	WeatherVariable WeatherVariable `json:"weather_variable"`
}

// WeatherVariable describes a variable and how its tiles decode.
type WeatherVariable struct {
	Name             string   `json:"name"`
	Description      string   `json:"description"`
	Attribution      string   `json:"attribution"`
	VariableID       string   `json:"variable_id"`
	Decoding         Decoding `json:"decoding"`
	Unit             string   `json:"unit"`
	ReleaseTimestamp string   `json:"release_timestamp"`
	Timestamp        string   `json:"timestamp"`
}

// Decoding is how tile pixels turn into values (see Channels).
type Decoding struct {
	Channels string  `json:"channels"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
}

// Keyframe is one time of a variable: its id is the id of its tileset,
// served at /tiles/{id}/{z}/{x}/{y}.png.
type Keyframe struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
}

// Web mercator (EPSG:3857).
const (
	mercatorExtent = 20037508.342789244
	mercatorWKT    = `PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]`
	maxMercatorLat = 85.0511287798066
)

// matrixSet is the web mercator tile matrix set of zooms 0..maxZoom.
func matrixSet(maxZoom int) TileMatrixSet {
	e := mercatorExtent
	s := TileMatrixSet{Bounds: [4]float64{-e, -e, e, e}}
	for z := 0; z <= maxZoom; z++ {
		n := 1 << z
		px := 2 * e / float64(n*TileSize)
		s.Items = append(s.Items, TileMatrix{ZoomLevel: z, MatrixWidth: n, MatrixHeight: n, TileWidth: TileSize, TileHeight: TileSize, PixelXSize: px, PixelYSize: px})
	}
	return s
}

// gridBounds is the part of the world a grid covers, in longitude and
// latitude clamped to web mercator's.
func gridBounds(g Grid) [4]float64 {
	lat0, lat1 := g.Lat1, g.Lat1-float64(g.Nj-1)*g.Dj
	if g.SouthToNorth {
		lat1 = g.Lat1 + float64(g.Nj-1)*g.Dj
	}
	s, n := math.Max(-maxMercatorLat, math.Min(lat0, lat1)), math.Min(maxMercatorLat, math.Max(lat0, lat1))
	if g.Global() {
		return [4]float64{-180, s, 180, n}
	}
	w := math.Mod(g.Lon1+540, 360) - 180
	e := w + float64(g.Ni-1)*g.Di
	return [4]float64{w, s, math.Min(e, 180), n}
}

// Dir is the folder of the weather catalog inside the data folder; it
// holds one <variable_id>.json per variable (its latest run).
const Dir = "weather"

// TilesetID names the tileset of a variable at a valid time.
func TilesetID(variable string, valid time.Time) string {
	return "weather-" + variable + "-" + strings.ToLower(valid.UTC().Format("20060102t1504z"))
}

// IngestOptions configure Ingest.
type IngestOptions struct {
	// DataDir is the data folder: tilesets go to DataDir/tiles, the
	// catalog to DataDir/weather.
	DataDir string
	Logger  *slog.Logger
	// Last, when above 0, keeps only the last Last times of each variable
	// of a NetCDF file (a reanalysis file can hold a year of them).
	Last int
}

// IngestResult tells what an ingest made.
type IngestResult struct {
	Variables []string
	Tilesets  []string
	Tiles     int
	Skipped   []Skipped
}

// Ingest reads GRIB2 files, writes one tileset per variable and valid
// time, and records every variable's run in the catalog unless a newer
// run of it was ingested before. The fields of one variable in one ingest
// share one decoding range (the smallest and largest value of them all):
// ingest the files of a run together.
func Ingest(ctx context.Context, files []string, opts IngestOptions) (IngestResult, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var res IngestResult
	byVar := map[string][]*Field{}
	for _, path := range files {
		fi, err := os.Stat(path)
		if err != nil {
			return res, fmt.Errorf("weather ingest: %w", err)
		}
		if fi.Size() > MaxFileBytes {
			return res, fmt.Errorf("weather ingest %s: %w: larger than %d bytes", path, ErrFormat, MaxFileBytes)
		}
		fields, skipped, err := readFile(path, opts.Last)
		if err != nil {
			return res, err
		}
		for _, s := range skipped {
			log.Warn("weather: skipped", "file", path, "message", s.Index, "reason", s.Reason)
		}
		res.Skipped = append(res.Skipped, skipped...)
		for _, f := range fields {
			id, _, _ := f.Variable()
			if dup := slices.ContainsFunc(byVar[id], func(o *Field) bool { return o.Valid.Equal(f.Valid) }); dup {
				log.Warn("weather: a second field of one variable and time is skipped", "file", path, "variable", id, "valid", f.Valid)
				res.Skipped = append(res.Skipped, Skipped{Index: -1, Reason: "second field of " + id + " at " + f.Valid.Format(time.RFC3339)})
				continue
			}
			byVar[id] = append(byVar[id], f)
		}
	}
	if len(byVar) == 0 {
		return res, fmt.Errorf("weather ingest: %w: no field could be read (every GRIB2 message or NetCDF variable was skipped)", ErrFormat)
	}
	ids := make([]string, 0, len(byVar))
	for id := range byVar {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		v, n, err := ingestVariable(ctx, id, byVar[id], opts.DataDir, log)
		if err != nil {
			return res, err
		}
		res.Variables = append(res.Variables, id)
		for _, k := range v.Keyframes {
			res.Tilesets = append(res.Tilesets, k.ID)
		}
		res.Tiles += n
	}
	return res, nil
}

// readFile reads the fields of a GRIB2 or NetCDF classic file (told apart
// by their first bytes).
func readFile(path string, last int) ([]*Field, []Skipped, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("weather ingest: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("weather ingest: %w", err)
	}
	var magic [4]byte
	if _, err := fh.ReadAt(magic[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("weather ingest: %w", err)
	}
	var fields []*Field
	var skipped []Skipped
	switch {
	case string(magic[:3]) == "CDF":
		fields, skipped, err = ReadNetCDF(fh, fi.Size(), path, last)
	case string(magic[:]) == "\x89HDF":
		err = fmt.Errorf("%w: a NetCDF-4 (HDF5) file: convert it to NetCDF classic first (nccopy -k nc6 in.nc out.nc)", ErrFormat)
	default:
		var data []byte
		if data, err = io.ReadAll(fh); err == nil {
			fields, skipped, err = ReadGRIB2(data)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("weather ingest %s: %w", path, err)
	}
	return fields, skipped, nil
}

// ingestVariable writes the tilesets of one variable's fields and its
// catalog entry.
func ingestVariable(ctx context.Context, id string, fields []*Field, dataDir string, log *slog.Logger) (Variable, int, error) {
	sort.SliceStable(fields, func(a, b int) bool { return fields[a].Valid.Before(fields[b].Valid) })
	ref := fields[0].Reference
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, f := range fields {
		if !f.Reference.Equal(ref) {
			return Variable{}, 0, fmt.Errorf("weather ingest: %s: fields of two runs (%s and %s): ingest one run at a time", id, ref.Format(time.RFC3339), f.Reference.Format(time.RFC3339))
		}
		if i > 0 && f.Valid.Equal(fields[i-1].Valid) {
			return Variable{}, 0, fmt.Errorf("weather ingest: %s: two fields valid at %s", id, f.Valid.Format(time.RFC3339))
		}
		if l, h, ok := f.Range(); ok {
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
	}
	if lo > hi {
		return Variable{}, 0, fmt.Errorf("weather ingest: %s: no finite value", id)
	}
	p := NewPacking(lo, hi)
	_, name, unit := fields[0].Variable()
	g := fields[0].Grid
	maxZoom := MaxZoom(g)
	bounds := gridBounds(g)
	attr := fields[0].attribution()
	desc := fmt.Sprintf("%s, %s run of %s, %gx%g degree grid", name, fields[0].model(), ref.Format("2006-01-02 15:04Z"), g.Di, g.Dj)
	v := Variable{
		SpatialRefSys: SpatialRefSys{AuthName: "EPSG", AuthSRID: "3857", WKT: mercatorWKT},
		Bounds:        bounds, TileFormat: "png", TileMatrixSet: matrixSet(maxZoom),
		Metadata: VariableMetadata{WeatherVariable{
			Name: name, Description: desc, Attribution: attr, VariableID: id,
			Decoding: Decoding{Channels: Channels, Min: p.Min, Max: p.Max}, Unit: unit,
			ReleaseTimestamp: ref.UTC().Format(time.RFC3339), Timestamp: fields[0].Valid.UTC().Format(time.RFC3339),
		}},
	}
	tilesDir := filepath.Join(dataDir, "tiles")
	if err := os.MkdirAll(tilesDir, 0o755); err != nil {
		return v, 0, fmt.Errorf("weather ingest: %w", err)
	}
	total := 0
	for _, f := range fields {
		ts := TilesetID(id, f.Valid)
		n, err := writeTileset(ctx, f, p, ts, tilesDir, maxZoom, bounds, name, desc, attr)
		if err != nil {
			return v, total, err
		}
		total += n
		v.Keyframes = append(v.Keyframes, Keyframe{ID: ts, Timestamp: f.Valid.UTC().Format(time.RFC3339)})
		log.Info("weather: tileset written", "tileset", ts, "tiles", n, "min", p.Min, "max", p.Max)
	}
	return v, total, saveVariable(filepath.Join(dataDir, Dir), v)
}

// writeTileset writes one field's tiles to tilesDir/<id>.mbtiles through a
// temporary file.
func writeTileset(ctx context.Context, f *Field, p Packing, id, tilesDir string, maxZoom int, b [4]float64, name, desc, attr string) (int, error) {
	final := filepath.Join(tilesDir, id+".mbtiles")
	tmp := filepath.Join(tilesDir, "."+id+".mbtiles.tmp-"+strconv.Itoa(os.Getpid()))
	_ = os.Remove(tmp)
	w, err := mbtiles.Create(tmp)
	if err != nil {
		return 0, fmt.Errorf("weather ingest: %w", err)
	}
	n, err := f.WriteTiles(ctx, w, p, maxZoom)
	if err == nil {
		ff := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		err = w.SetMetadata(ctx, map[string]string{
			"name": name + " " + f.Valid.UTC().Format(time.RFC3339), "description": desc + "; values packed in red and green: " +
				fmt.Sprintf("min + (R*256+G)/65535*(max-min), min %s, max %s", ff(p.Min), ff(p.Max)),
			"attribution": attr, "format": "png", "type": "overlay", "version": "1",
			"minzoom": "0", "maxzoom": strconv.Itoa(maxZoom),
			"bounds": ff(b[0]) + "," + ff(b[1]) + "," + ff(b[2]) + "," + ff(b[3]),
		})
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return 0, fmt.Errorf("weather ingest: tileset %s: %w", id, err)
	}
	return n, nil
}

// saveVariable records v in dir unless the variable's recorded run is
// newer.
func saveVariable(dir string, v Variable) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("weather ingest: %w", err)
	}
	path := filepath.Join(dir, v.Metadata.WeatherVariable.VariableID+".json")
	if old, err := readVariable(path); err == nil && old.Metadata.WeatherVariable.ReleaseTimestamp > v.Metadata.WeatherVariable.ReleaseTimestamp {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("weather ingest: %w", err)
	}
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("weather ingest: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("weather ingest: %w", err)
	}
	return nil
}

// maxVariableFile bounds a catalog file read.
const maxVariableFile = 1 << 20

// variableCache holds the variable files read, by path, with the
// modification time and size they had: latest.json reads a file again only
// when an ingest has replaced it (a run of the 2.5 degree GFS sample is 207
// files, which took milliseconds to read and parse for every request).
var variableCache sync.Map // path -> cachedVariable

type cachedVariable struct {
	mod  time.Time
	size int64
	v    Variable
}

// readVariableCached is readVariable through variableCache. The result is
// shared: callers must not modify it.
func readVariableCached(path string) (Variable, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Variable{}, err
	}
	if c, ok := variableCache.Load(path); ok {
		if cv := c.(cachedVariable); cv.mod.Equal(fi.ModTime()) && cv.size == fi.Size() {
			return cv.v, nil
		}
	}
	v, err := readVariable(path)
	if err != nil {
		return v, err
	}
	// Stamped with the time and size seen before reading: a file replaced
	// meanwhile is read again next time.
	variableCache.Store(path, cachedVariable{mod: fi.ModTime(), size: fi.Size(), v: v})
	return v, nil
}

func readVariable(path string) (Variable, error) {
	var v Variable
	fi, err := os.Stat(path)
	if err != nil {
		return v, err
	}
	if fi.Size() > maxVariableFile {
		return v, fmt.Errorf("%s: larger than %d bytes", path, maxVariableFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Latest reads the catalog in dir (DataDir/weather): every variable with the
// keyframes whose tileset served tells is served (variables left with
// none are left out), ordered by variable id. A missing folder is an
// empty catalog.
func Latest(dir string, served func(id string) bool) (Catalog, error) {
	c := Catalog{Variables: []Variable{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return c, err
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := readVariableCached(name)
		if errors.Is(err, os.ErrNotExist) {
			continue // replaced meanwhile
		}
		if err != nil {
			return c, fmt.Errorf("weather catalog: %w", err)
		}
		// A new slice: v is shared with the cache.
		kept := make([]Keyframe, 0, len(v.Keyframes))
		for _, k := range v.Keyframes {
			if served == nil || served(k.ID) {
				kept = append(kept, k)
			}
		}
		if len(kept) == 0 {
			continue
		}
		v.Keyframes = kept
		c.Variables = append(c.Variables, v)
	}
	return c, nil
}
