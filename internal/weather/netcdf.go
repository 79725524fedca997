package weather

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tesseramaps/tessera/internal/netcdf"
)

// Label names a field read from NetCDF: its variable id, name and unit, and
// the producer and model the file names (GRIB2 fields derive these from
// their code tables).
type Label struct {
	ID, Name, Unit     string
	Attribution, Model string
}

// MaxNetCDFFields bounds the fields (variables x times x levels) read from
// one NetCDF file.
const MaxNetCDFFields = 20000

// netcdfAxis is a coordinate variable of a NetCDF file (a one-dimensional
// variable named as its dimension) and what it is by the CF conventions.
type netcdfAxis struct {
	dim    int
	name   string
	kind   byte // 'x' longitude, 'y' latitude, 't' time, 'z' vertical, 0 other
	values []float64
	units  string
}

// ReadNetCDF reads the gridded fields of a NetCDF classic file following the
// CF conventions: every variable whose last two dimensions are latitude and
// longitude (coordinate variables with units degrees_north and degrees_east,
// or standard_name latitude and longitude), evenly spaced, with a time
// dimension (units "<unit> since <date>", Gregorian calendar) and at most one
// vertical dimension before them. scale_factor, add_offset, _FillValue and
// missing_value are applied (missing values are NaN). A field is one
// variable at one time and level; last > 0 keeps each variable's last
// times only. Variables of other shapes are listed in skipped.
func ReadNetCDF(r io.ReaderAt, size int64, name string, last int) (fields []*Field, skipped []Skipped, err error) {
	f, err := netcdf.Open(r, size)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	axes := map[int]*netcdfAxis{}
	for i := range f.Vars {
		v := &f.Vars[i]
		if len(v.DimIDs) != 1 || f.Dims[v.DimIDs[0]].Name != v.Name || v.Type == netcdf.Char {
			continue
		}
		a := &netcdfAxis{dim: v.DimIDs[0], name: v.Name, kind: axisKind(v)}
		if a.kind == 0 {
			continue
		}
		n := f.NumRecs
		if !v.Record {
			n = int64(v.Shape[0])
		}
		if n > MaxPoints {
			return nil, nil, fmt.Errorf("%w: coordinate %q has %d values", ErrFormat, v.Name, n)
		}
		for k := range n {
			at := []int(nil)
			if v.Record {
				at = []int{int(k)}
			}
			vals, err := f.ReadSlab(v, at, MaxPoints)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: coordinate %q: %v", ErrFormat, v.Name, err)
			}
			a.values = append(a.values, vals...)
			if !v.Record {
				break
			}
		}
		u, _ := v.Attr("units")
		a.units = strings.TrimSpace(u.Text)
		axes[a.dim] = a
	}
	reference, hasRef := referenceTime(f)
	attribution, model := fileLabels(f, name)
	for i := range f.Vars {
		v := &f.Vars[i]
		fs, reason, err := readNetCDFVariable(f, v, axes, last)
		if err != nil {
			return nil, nil, err
		}
		if reason != "" {
			if len(v.DimIDs) >= 2 {
				skipped = append(skipped, Skipped{Index: i, Reason: v.Name + ": " + reason})
			}
			continue
		}
		if len(fields)+len(fs) > MaxNetCDFFields {
			return nil, nil, fmt.Errorf("%w: more than %d fields (variables x times x levels); ingest fewer times (--last)", ErrFormat, MaxNetCDFFields)
		}
		fields = append(fields, fs...)
	}
	if len(fields) == 0 {
		if len(skipped) == 0 {
			return nil, nil, fmt.Errorf("%w: no variable over latitude and longitude in the NetCDF file", ErrFormat)
		}
		return nil, skipped, nil
	}
	// The run: the file's forecast_reference_time, else its first time.
	if !hasRef {
		reference = fields[0].Valid
		for _, fl := range fields {
			if fl.Valid.Before(reference) {
				reference = fl.Valid
			}
		}
	}
	for _, fl := range fields {
		fl.Reference = reference
		fl.Label.Attribution, fl.Label.Model = attribution, model
	}
	return fields, skipped, nil
}

// readNetCDFVariable reads the fields of one data variable, or says why it
// is not one (reason), or fails on a broken file (err).
func readNetCDFVariable(f *netcdf.File, v *netcdf.Var, axes map[int]*netcdfAxis, last int) (fields []*Field, reason string, err error) {
	n := len(v.DimIDs)
	if n < 2 || v.Type == netcdf.Char {
		return nil, "not a grid", nil
	}
	lat, lon := axes[v.DimIDs[n-2]], axes[v.DimIDs[n-1]]
	if lat == nil || lon == nil || lat.kind != 'y' || lon.kind != 'x' {
		return nil, "its last two dimensions are not latitude and longitude", nil
	}
	var tAxis, zAxis *netcdfAxis
	for _, d := range v.DimIDs[:n-2] {
		a := axes[d]
		switch {
		case a != nil && a.kind == 't' && tAxis == nil:
			tAxis = a
		case a != nil && a.kind == 'z' && zAxis == nil:
			zAxis = a
		default:
			return nil, fmt.Sprintf("dimension %q is neither its time nor its vertical axis", f.Dims[d].Name), nil
		}
	}
	if tAxis == nil {
		return nil, "no time dimension", nil
	}
	times, why := cfTimes(tAxis, f)
	if why != "" {
		return nil, why, nil
	}
	g, why := regularGrid(lat.values, lon.values)
	if why != "" {
		return nil, why, nil
	}
	label := Label{ID: variableID(v.Name), Unit: attrText(v, "units")}
	label.Name = attrText(v, "long_name")
	if label.Name == "" {
		label.Name = strings.ReplaceAll(attrText(v, "standard_name"), "_", " ")
	}
	if label.Name == "" {
		label.Name = v.Name
	}
	levels := []float64{math.NaN()}
	if zAxis != nil {
		levels = zAxis.values
	}
	unpack := v.Unpacking()
	first := 0
	if last > 0 && len(times) > last {
		first = len(times) - last
	}
	for ti := first; ti < len(times); ti++ {
		for zi, lv := range levels {
			// The indices of the leading dimensions, in the variable's order.
			var at []int
			for _, d := range v.DimIDs[:n-2] {
				if d == tAxis.dim {
					at = append(at, ti)
				} else {
					at = append(at, zi)
				}
			}
			vals, err := f.ReadSlab(v, at, MaxPoints)
			if err != nil {
				return nil, "", fmt.Errorf("%w: variable %q: %v", ErrFormat, v.Name, err)
			}
			unpack.Apply(vals)
			l := label
			if zAxis != nil {
				id, words := netcdfLevel(lv, zAxis.units)
				l.ID += "-" + id
				l.Name += " " + words
			}
			fields = append(fields, &Field{Surface2Type: 255, Valid: times[ti], Grid: g, Values: vals, Label: &l})
		}
	}
	return fields, "", nil
}

// axisKind tells what a coordinate variable is by its units, standard_name
// or axis attribute.
func axisKind(v *netcdf.Var) byte {
	units := strings.ToLower(attrText(v, "units"))
	std := strings.ToLower(attrText(v, "standard_name"))
	axis := strings.ToUpper(attrText(v, "axis"))
	switch {
	case std == "latitude" || slices.Contains([]string{"degrees_north", "degree_north", "degree_n", "degrees_n", "degreen", "degreesn"}, units):
		return 'y'
	case std == "longitude" || slices.Contains([]string{"degrees_east", "degree_east", "degree_e", "degrees_e", "degreee", "degreese"}, units):
		return 'x'
	case std == "time" || axis == "T" || strings.Contains(units, " since "):
		return 't'
	case axis == "Z" || attrText(v, "positive") != "" || slices.Contains([]string{"air_pressure", "height", "altitude", "depth"}, std) ||
		slices.Contains([]string{"hpa", "mb", "mbar", "millibar", "millibars", "pa", "m", "meter", "meters", "metre", "metres"}, units):
		return 'z'
	}
	return 0
}

func attrText(v *netcdf.Var, name string) string {
	a, _ := v.Attr(name)
	return strings.TrimSpace(a.Text)
}

// cfUnits are the time units of CF time coordinates, in seconds.
var cfUnits = map[string]float64{
	"second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1,
	"minute": 60, "minutes": 60, "min": 60, "mins": 60,
	"hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600,
	"day": 86400, "days": 86400, "d": 86400,
}

var sinceRE = regexp.MustCompile(`^(?i)(\w+)\s+since\s+(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|[+-]00:?00)?$`)

// cfTimes converts a time coordinate ("hours since 1980-01-14 14:00:00") to
// times, or says why it cannot (another calendar, an unknown unit, a date
// before the Gregorian calendar).
func cfTimes(a *netcdfAxis, f *netcdf.File) ([]time.Time, string) {
	if v, ok := f.Var(a.name); ok {
		switch cal := strings.ToLower(attrText(v, "calendar")); cal {
		case "", "standard", "gregorian", "proleptic_gregorian":
		default:
			return nil, fmt.Sprintf("time %q uses the %s calendar (only the Gregorian one is read)", a.name, cal)
		}
	}
	m := sinceRE.FindStringSubmatch(a.units)
	if m == nil {
		return nil, fmt.Sprintf("time %q has units %.60q, not \"<unit> since <date>\"", a.name, a.units)
	}
	unit, ok := cfUnits[strings.ToLower(m[1])]
	if !ok {
		return nil, fmt.Sprintf("time %q has unit %q (seconds, minutes, hours or days are read)", a.name, m[1])
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	sec := 0.0
	if m[7] != "" {
		sec, _ = strconv.ParseFloat(m[7], 64)
	}
	origin := time.Date(num(m[2]), time.Month(num(m[3])), num(m[4]), num(m[5]), num(m[6]), 0, 0, time.UTC).Add(time.Duration(sec * float64(time.Second)))
	if origin.Before(time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC)) {
		return nil, fmt.Sprintf("time %q counts from %s, before the Gregorian calendar", a.name, origin.Format("2006-01-02"))
	}
	out := make([]time.Time, len(a.values))
	for i, x := range a.values {
		s := x * unit
		if math.IsNaN(s) || math.Abs(s) > 1e11 { // about 3,000 years
			return nil, fmt.Sprintf("time %q has value %g out of range", a.name, x)
		}
		out[i] = origin.Add(time.Duration(math.Round(s)) * time.Second)
	}
	return out, ""
}

// regularGrid makes the grid of evenly spaced latitudes and longitudes
// (longitudes increasing), or says why they are not.
func regularGrid(lats, lons []float64) (Grid, string) {
	even := func(vs []float64) (float64, bool) {
		if len(vs) < 2 {
			return 0, false
		}
		step := (vs[len(vs)-1] - vs[0]) / float64(len(vs)-1)
		for i := 1; i < len(vs); i++ {
			if math.Abs(vs[i]-vs[i-1]-step) > 1e-4*math.Abs(step)+1e-9 {
				return 0, false
			}
		}
		return step, step != 0 && !math.IsNaN(step) && !math.IsInf(step, 0)
	}
	di, ok := even(lons)
	if !ok || di < 0 {
		return Grid{}, "longitudes are not evenly spaced west to east"
	}
	dj, ok := even(lats)
	if !ok {
		return Grid{}, "latitudes are not evenly spaced"
	}
	if math.Abs(lats[0]) > 90+1e-6 || math.Abs(lats[len(lats)-1]) > 90+1e-6 {
		return Grid{}, "latitudes outside -90..90"
	}
	if int64(len(lats))*int64(len(lons)) > MaxPoints {
		return Grid{}, fmt.Sprintf("%d x %d points, more than %d", len(lons), len(lats), MaxPoints)
	}
	return Grid{Ni: len(lons), Nj: len(lats), Lon1: lons[0], Di: di, Lat1: lats[0], Dj: math.Abs(dj), SouthToNorth: dj > 0}, ""
}

// referenceTime is the file's forecast_reference_time (a scalar or
// one-value variable with that standard_name), when it has one.
func referenceTime(f *netcdf.File) (time.Time, bool) {
	for i := range f.Vars {
		v := &f.Vars[i]
		if attrText(v, "standard_name") != "forecast_reference_time" || v.Record || v.Len() != 1 {
			continue
		}
		vals, err := f.ReadSlab(v, nil, 1)
		if err != nil {
			continue
		}
		ts, why := cfTimes(&netcdfAxis{name: v.Name, values: vals, units: attrText(v, "units")}, f)
		if why == "" {
			return ts[0], true
		}
	}
	return time.Time{}, false
}

// fileLabels are the producer and the model of a file, from its global
// attributes (institution, source, title), else its name.
func fileLabels(f *netcdf.File, name string) (attribution, model string) {
	global := func(n string) string {
		a, _ := f.Attr(n)
		return strings.TrimSpace(a.Text)
	}
	attribution = global("institution")
	if attribution == "" {
		attribution = global("source")
	}
	if attribution == "" {
		attribution = "NetCDF file " + filepath.Base(name)
	}
	model = global("title")
	if model == "" {
		model = global("source")
	}
	if model == "" {
		model = filepath.Base(name)
	}
	return attribution, model
}

// variableID makes a NetCDF variable's name a variable id: lower case,
// runs of other characters than letters and digits as one "-".
func variableID(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "var"
	}
	return b.String()
}

// netcdfLevel names a vertical level by its coordinate's units.
func netcdfLevel(v float64, units string) (id, words string) {
	num := func(x float64) string { return strings.ReplaceAll(strconv.FormatFloat(x, 'f', -1, 64), ".", "p") }
	words = strconv.FormatFloat(v, 'f', -1, 64)
	switch u := strings.ToLower(units); u {
	case "hpa", "mb", "mbar", "millibar", "millibars":
		return num(v) + "hpa", "at " + words + " hPa"
	case "pa":
		return num(v/100) + "hpa", "at " + strconv.FormatFloat(v/100, 'f', -1, 64) + " hPa"
	case "m", "meter", "meters", "metre", "metres":
		return num(v) + "m", "at " + words + " m"
	case "":
		return "level" + num(v), "at level " + words
	default:
		return "level" + num(v), "at level " + words + " " + units
	}
}
