package weather

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/netcdf"
)

// navyWinds is Debian ferret-datasets' monthly_navy_winds.cdf: FNOC monthly
// mean winds (UWND, VWND in M/S) of 1980-1990 on a 2.5 degree grid, NetCDF
// classic with TIME the record dimension, coordinates named FNOCX and FNOCY
// (known by their units), -99.9 marking missing values.
func navyWinds(t *testing.T) string {
	t.Helper()
	root := fixtures.Debian(t, "ferret-datasets")
	return filepath.Join(root, "usr", "share", "ferret-vis", "data", "monthly_navy_winds.cdf")
}

// readNetCDFFile reads a NetCDF file's fields (keeping the last times).
func readNetCDFFile(t *testing.T, path string, last int) ([]*Field, []Skipped, error) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return ReadNetCDF(fh, fi.Size(), path, last)
}

// TestNetCDFAgainstGDAL reads the navy winds and compares values at grid
// points of several months with GDAL's netCDF driver (missing values are
// GDAL's nodata), and the times with the file's TIME axis as GDAL lists it.
func TestNetCDFAgainstGDAL(t *testing.T) {
	path := navyWinds(t)
	tool := fixtures.Tool(t, "gdallocationinfo")
	fields, skipped, err := readNetCDFFile(t, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 2*132 || len(skipped) != 0 {
		t.Fatalf("%d fields, %d skipped (%v): want 264 (UWND and VWND, 132 months)", len(fields), len(skipped), skipped)
	}
	g := fields[0].Grid
	if g.Ni != 144 || g.Nj != 73 || g.Di != 2.5 || g.Dj != 2.5 || g.Lon1 != 20 || !g.Global() {
		t.Errorf("grid %+v", g)
	}
	// TIME: hours since 1980-01-14 14:00:00; the first value is 17598.
	origin := time.Date(1980, 1, 14, 14, 0, 0, 0, time.UTC)
	if want := origin.Add(17598 * time.Hour); !fields[0].Valid.Equal(want) || !fields[0].Reference.Equal(want) {
		t.Errorf("first field valid %v reference %v, want %v", fields[0].Valid, fields[0].Reference, want)
	}
	if want := origin.Add(time.Duration(113293.5 * float64(time.Hour))); !fields[263].Valid.Equal(want) {
		t.Errorf("last field valid %v, want %v", fields[263].Valid, want)
	}
	missing := 0
	// Fields are by variable (UWND, VWND), then time; GDAL's band n is
	// the n-th time.
	for _, c := range []struct{ v, band int }{{0, 1}, {1, 1}, {0, 41}, {1, 132}, {1, 78}, {0, 132}} {
		f := fields[c.v*132+c.band-1]
		id, name, unit := f.Variable()
		v := []string{"uwnd", "vwnd"}[c.v]
		if id != v || unit != "M/S" || name != []string{"ZONAL WIND", "MERIDIONAL WIND"}[c.v] {
			t.Errorf("field %d %d: %q %q %q", c.v, c.band, id, name, unit)
		}
		dataset := "NETCDF:" + path + ":" + strings.ToUpper(v)
		cells := [][2]int{{0, 0}, {10, 40}, {143, 72}, {71, 36}, {100, 20}, {37, 60}, {5, 70}, {120, 3}}
		var pts [][2]float64
		for _, p := range cells {
			lon, lat := g.LonLat(p[0], p[1])
			pts = append(pts, [2]float64{lon, lat})
		}
		for k, want := range gdalValues(t, tool, dataset, c.band, "-geoloc", pts) {
			got := f.At(cells[k][0], cells[k][1])
			if math.Abs(want+99.9) < 1e-4 {
				missing++
				if !math.IsNaN(got) {
					t.Errorf("%s band %d at %v: %g, GDAL nodata", v, c.band, pts[k], got)
				}
				continue
			}
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("%s band %d at %v: %g, GDAL %g", v, c.band, pts[k], got, want)
			}
		}
	}
	nan := 0
	for _, f := range fields {
		for _, x := range f.Values {
			if math.IsNaN(x) {
				nan++
			}
		}
	}
	t.Logf("%d missing values in the file", nan)
	t.Logf("%d of 48 points missing in both", missing)
}

// TestIngestNetCDF ingests the last two months of the navy winds: one
// tileset per variable and month, the catalog naming the months (the run is
// the first of them: the file has no forecast_reference_time), and tile
// pixels decoding to the field's bilinear value within the packing's step.
func TestIngestNetCDF(t *testing.T) {
	path := navyWinds(t)
	dir := t.TempDir()
	res, err := Ingest(context.Background(), []string{path}, IngestOptions{DataDir: dir, Last: 2})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Variables, ",") != "uwnd,vwnd" || len(res.Tilesets) != 4 {
		t.Fatalf("ingest: %+v", res)
	}
	cat, err := Latest(filepath.Join(dir, Dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Variables) != 2 {
		t.Fatalf("%d variables", len(cat.Variables))
	}
	origin := time.Date(1980, 1, 14, 14, 0, 0, 0, time.UTC)
	at := func(h float64) string {
		return origin.Add(time.Duration(h * float64(time.Hour))).Format(time.RFC3339)
	}
	v := cat.Variables[0]
	wv := v.Metadata.WeatherVariable
	if wv.VariableID != "uwnd" || wv.Unit != "M/S" || wv.Name != "ZONAL WIND" || wv.ReleaseTimestamp != at(112563) ||
		wv.Timestamp != at(112563) || len(v.Keyframes) != 2 || v.Keyframes[1].Timestamp != at(113293.5) {
		t.Errorf("variable: %+v %+v", wv, v.Keyframes)
	}
	if v.Keyframes[0].ID != TilesetID("uwnd", origin.Add(112563*time.Hour)) {
		t.Errorf("keyframe id %q", v.Keyframes[0].ID)
	}
	// The decoding range is the range of uwnd over the two months, and
	// tile pixels decode to the field's bilinear value within half a step.
	fields, _, err := readNetCDFFile(t, path, 2)
	if err != nil || len(fields) != 4 {
		t.Fatalf("%d fields: %v", len(fields), err)
	}
	var u []*Field
	for _, f := range fields {
		if id, _, _ := f.Variable(); id == "uwnd" {
			u = append(u, f)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range u {
		l, h, _ := f.Range()
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	if wv.Decoding.Min != lo || wv.Decoding.Max != hi || len(u) != 2 {
		t.Errorf("decoding %g..%g, uwnd ranges %g..%g", wv.Decoding.Min, wv.Decoding.Max, lo, hi)
	}
	p := Packing{Min: lo, Max: hi}
	r, err := mbtiles.Open(context.Background(), filepath.Join(dir, "tiles", v.Keyframes[1].ID+".mbtiles"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checked, holes := 0, 0
	for z := 0; z <= MaxZoom(u[1].Grid); z++ {
		for x := range 1 << z {
			for y := range 1 << z {
				b, err := r.Tile(context.Background(), z, x, y)
				if err != nil || b == nil {
					t.Fatalf("tile %d/%d/%d: %v", z, x, y, err)
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range [][2]int{{0, 0}, {128, 128}, {255, 255}, {17, 201}, {240, 30}} {
					cr, cg, cb, ca := img.At(q[0], q[1]).RGBA()
					lon, lat := TileLonLat(z, x, y, q[0], q[1])
					want, ok := u[1].Sample(lon, lat)
					if !ok {
						holes++
						if ca != 0 {
							t.Errorf("tile %d/%d/%d pixel %v: a value where the field has none", z, x, y, q)
						}
						continue
					}
					if ca>>8 != 255 || cb != 0 {
						t.Errorf("tile %d/%d/%d pixel %v: alpha %d blue %d", z, x, y, q, ca>>8, cb>>8)
					}
					if got := p.Unpack(uint8(cr>>8), uint8(cg>>8)); math.Abs(got-want) > p.Step()/2+1e-9 {
						t.Errorf("tile %d/%d/%d pixel %v decodes to %g, field %g", z, x, y, q, got, want)
					}
					checked++
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d pixels checked (%d without a value)", checked, holes)
	}
}

// TestNetCDFClimatology: ferret-datasets' COADS climatology counts its
// months from year 0 (a climatological year, no calendar date): every
// variable is skipped with that reason and an ingest refuses the file.
func TestNetCDFClimatology(t *testing.T) {
	path := filepath.Join(fixtures.Debian(t, "ferret-datasets"), "usr", "share", "ferret-vis", "data", "coads_climatology.cdf")
	fields, skipped, err := readNetCDFFile(t, path, 0)
	if err != nil || len(fields) != 0 || len(skipped) != 7 {
		t.Fatalf("%d fields, %d skipped, %v: want the 7 variables skipped", len(fields), len(skipped), err)
	}
	for _, s := range skipped {
		if !strings.Contains(s.Reason, "before the Gregorian calendar") {
			t.Errorf("skipped: %+v", s)
		}
	}
	if _, err := Ingest(context.Background(), []string{path}, IngestOptions{DataDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no field could be read") {
		t.Errorf("ingest: %v", err)
	}
}

// smallNetCDF is a CF file of one variable over time, latitude and
// longitude (2 x 3 x 4), packed, with a fill value.
func smallNetCDF(t testing.TB) []byte {
	var buf bytes.Buffer
	vals := make([]float32, 24)
	for i := range vals {
		vals[i] = float32(i)
	}
	vals[5] = -1
	err := netcdf.Encode(&buf, []netcdf.Dim{{Name: "time", Len: 2}, {Name: "lat", Len: 3}, {Name: "lon", Len: 4}},
		[]netcdf.Attr{{Name: "institution", Type: netcdf.Char, Text: "Test centre"}},
		[]netcdf.VarData{
			{Name: "time", Dims: []string{"time"}, Attrs: []netcdf.Attr{{Name: "units", Type: netcdf.Char, Text: "hours since 2024-03-01 00:00:00"}}, Values: []float32{0, 6}},
			{Name: "lat", Dims: []string{"lat"}, Attrs: []netcdf.Attr{{Name: "units", Type: netcdf.Char, Text: "degrees_north"}}, Values: []float32{40, 45, 50}},
			{Name: "lon", Dims: []string{"lon"}, Attrs: []netcdf.Attr{{Name: "units", Type: netcdf.Char, Text: "degrees_east"}}, Values: []float32{0, 5, 10, 15}},
			{Name: "T2m", Dims: []string{"time", "lat", "lon"}, Attrs: []netcdf.Attr{
				{Name: "long_name", Type: netcdf.Char, Text: "2 m temperature"}, {Name: "units", Type: netcdf.Char, Text: "K"},
				{Name: "scale_factor", Type: netcdf.Double, Values: []float64{0.5}}, {Name: "add_offset", Type: netcdf.Double, Values: []float64{270}},
				{Name: "_FillValue", Type: netcdf.Double, Values: []float64{-1}}}, Values: vals},
		})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadNetCDFSmall: a regional south-to-north grid, unpacking, the fill
// value, times, the label from the attributes.
func TestReadNetCDFSmall(t *testing.T) {
	data := smallNetCDF(t)
	fields, skipped, err := ReadNetCDF(bytes.NewReader(data), int64(len(data)), "small.nc", 0)
	if err != nil || len(fields) != 2 || len(skipped) != 0 {
		t.Fatalf("%d fields, %v, %v", len(fields), skipped, err)
	}
	f := fields[1]
	if id, name, unit := f.Variable(); id != "t2m" || name != "2 m temperature" || unit != "K" || f.attribution() != "Test centre" {
		t.Errorf("label %q %q %q %q", id, name, unit, f.attribution())
	}
	if want := (Grid{Ni: 4, Nj: 3, Lon1: 0, Di: 5, Lat1: 40, Dj: 5, SouthToNorth: true}); f.Grid != want || f.Grid.Global() {
		t.Errorf("grid %+v", f.Grid)
	}
	if !f.Valid.Equal(time.Date(2024, 3, 1, 6, 0, 0, 0, time.UTC)) || !f.Reference.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("times %v %v", f.Valid, f.Reference)
	}
	if got := f.At(1, 2); got != 270+0.5*float64(12+2*4+1) {
		t.Errorf("value at lon 5, lat 50: %g", got)
	}
	if !math.IsNaN(fields[0].At(1, 1)) {
		t.Errorf("fill value read as %g", fields[0].At(1, 1))
	}
	if v, ok := f.Sample(7.5, 47.5); !ok || math.Abs(v-(270+0.5*(12+(5+6+9+10)/4.0))) > 1e-9 {
		t.Errorf("bilinear at 7.5,47.5: %g %v", v, ok)
	}
	last, _, err := ReadNetCDF(bytes.NewReader(data), int64(len(data)), "small.nc", 1)
	if err != nil || len(last) != 1 || !last[0].Valid.Equal(f.Valid) {
		t.Errorf("last 1: %d fields %v", len(last), err)
	}
}

func FuzzReadNetCDF(f *testing.F) {
	f.Add(smallNetCDF(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, _, err := ReadNetCDF(bytes.NewReader(data), int64(len(data)), "fuzz.nc", 0)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		for _, fl := range fields {
			if len(fl.Values) != fl.Grid.Ni*fl.Grid.Nj {
				t.Fatalf("%d values for a %dx%d grid", len(fl.Values), fl.Grid.Ni, fl.Grid.Nj)
			}
			fl.Sample(1, 45)
		}
	})
}
