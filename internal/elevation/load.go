package elevation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tesseramaps/tessera/internal/netcdf"
)

// MaxGridValues bounds the values of one grid held in memory (256 Mi
// values, 1 GiB of float32).
const MaxGridValues = 256 << 20

// ErrFormat is wrapped by errors about a model file's contents.
var ErrFormat = errors.New("not a usable elevation model")

// LoadNetCDF reads a NetCDF classic file holding one two-dimensional
// variable over two coordinate variables (longitude, then latitude, as their
// units degrees_east and degrees_north or their order say), such as ETOPO5.
// The coordinate variables must be evenly spaced (their first and last
// values set the spacing, as GDAL does). _FillValue and missing_value mark
// missing values; scale_factor and add_offset are applied.
func LoadNetCDF(path string) (*Grid, error) {
	fh, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := netcdf.Open(fh, size)
	if err != nil {
		return nil, fmt.Errorf("elevation: %s: %w", path, err)
	}
	g, err := gridFromNetCDF(f)
	if err != nil {
		return nil, fmt.Errorf("elevation: %s: %w", path, err)
	}
	g.Name = filepath.Base(path)
	return g, nil
}

func gridFromNetCDF(f *netcdf.File) (*Grid, error) {
	var data *netcdf.Var
	for i := range f.Vars {
		v := &f.Vars[i]
		if len(v.Shape) == 2 && !v.Record && v.Type != netcdf.Char {
			if data != nil {
				return nil, fmt.Errorf("%w: two two-dimensional variables (%s, %s)", ErrFormat, data.Name, v.Name)
			}
			data = v
		}
	}
	if data == nil {
		return nil, fmt.Errorf("%w: no two-dimensional variable", ErrFormat)
	}
	// The coordinate variables: one-dimensional, named as their dimension.
	axis := func(dim int) (first, step float64, n int, units string, err error) {
		d := f.Dims[data.DimIDs[dim]]
		cv, ok := f.Var(d.Name)
		if !ok || len(cv.Shape) != 1 || cv.DimIDs[0] != data.DimIDs[dim] || d.Len < 2 {
			return 0, 0, 0, "", fmt.Errorf("%w: dimension %q has no coordinate variable", ErrFormat, d.Name)
		}
		vals, err := f.ReadFloat32(cv, MaxGridValues)
		if err != nil {
			return 0, 0, 0, "", err
		}
		a, b := float64(vals[0]), float64(vals[len(vals)-1])
		step = (b - a) / float64(len(vals)-1)
		if !(step != 0) || math.IsInf(step, 0) || math.IsNaN(a) {
			return 0, 0, 0, "", fmt.Errorf("%w: coordinate %q is not evenly spaced", ErrFormat, d.Name)
		}
		u, _ := cv.Attr("units")
		return a, step, len(vals), strings.ToLower(u.Text), nil
	}
	y0, dy, h, yu, err := axis(0)
	if err != nil {
		return nil, err
	}
	x0, dx, w, xu, err := axis(1)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(yu, "degrees_e") || strings.HasPrefix(xu, "degrees_n") {
		return nil, fmt.Errorf("%w: %s is stored longitude-major (not supported)", ErrFormat, data.Name)
	}
	if math.Abs(y0) > 90.001 || math.Abs(y0+float64(h-1)*dy) > 90.001 {
		return nil, fmt.Errorf("%w: latitudes outside -90..90", ErrFormat)
	}
	vals, err := f.ReadFloat32(data, MaxGridValues)
	if err != nil {
		return nil, err
	}
	g := &Grid{W: w, H: h, X0: x0, DX: dx, Y0: y0, DY: dy, Data: vals}
	for _, name := range []string{"_FillValue", "missing_value"} {
		if a, ok := data.Attr(name); ok && len(a.Values) == 1 {
			g.NoData, g.HasNoData = float32(a.Values[0]), true
		}
	}
	scale, offset := 1.0, 0.0
	if a, ok := data.Attr("scale_factor"); ok && len(a.Values) == 1 {
		scale = a.Values[0]
	}
	if a, ok := data.Attr("add_offset"); ok && len(a.Values) == 1 {
		offset = a.Values[0]
	}
	if scale != 1 || offset != 0 {
		for i, v := range g.Data {
			if !g.missing(v) {
				g.Data[i] = float32(float64(v)*scale + offset)
			}
		}
	}
	// A grid whose columns span the globe wraps: its last column joins its
	// first across the remaining gap.
	if period := 360 / math.Abs(dx); period > float64(w)-0.5 && period < float64(w)+1.5 {
		g.Period = period
		if dx < 0 {
			g.Period = 0 // east-to-west columns: left unwrapped
		}
	}
	return g, nil
}

// Open loads every model in dir: NetCDF files (.nc, .cdf) and GeoTIFF files
// (.tif, .tiff). An absent folder gives an empty model.
func Open(ctx context.Context, dir string, log *slog.Logger) (*Model, error) {
	if log == nil {
		log = slog.Default()
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return NewModel(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("elevation: %w", err)
	}
	var grids []*Grid
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		var g *Grid
		switch ext := strings.ToLower(filepath.Ext(name)); {
		case slices.Contains([]string{".nc", ".cdf"}, ext):
			g, err = LoadNetCDF(path)
		case slices.Contains([]string{".tif", ".tiff"}, ext):
			g, err = LoadGeoTIFF(path)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		log.Info("elevation model loaded", "file", path, "width", g.W, "height", g.H, "resolution_deg", g.Res())
		grids = append(grids, g)
	}
	return NewModel(grids...), nil
}

// openFile opens a model file and returns its size.
func openFile(path string) (*os.File, int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("elevation: %w", err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, fmt.Errorf("elevation: %w", err)
	}
	return fh, fi.Size(), nil
}
