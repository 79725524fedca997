package weather

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// param names a GRIB2 parameter (discipline, category, number).
type param struct {
	element, name, unit string
}

// params are the parameters named (WMO GRIB2 code table 4.2, with NCEP's
// abbreviations); others get a numeric id.
var params = map[[3]int]param{
	{0, 0, 0}:  {"tmp", "Temperature", "K"},
	{0, 0, 6}:  {"dpt", "Dew point temperature", "K"},
	{0, 1, 0}:  {"spfh", "Specific humidity", "kg/kg"},
	{0, 1, 1}:  {"rh", "Relative humidity", "%"},
	{0, 1, 3}:  {"pwat", "Precipitable water", "kg/m^2"},
	{0, 1, 8}:  {"apcp", "Total precipitation", "kg/m^2"},
	{0, 2, 2}:  {"ugrd", "U-component of wind", "m/s"},
	{0, 2, 3}:  {"vgrd", "V-component of wind", "m/s"},
	{0, 2, 8}:  {"vvel", "Vertical velocity (pressure)", "Pa/s"},
	{0, 2, 22}: {"gust", "Wind speed (gust)", "m/s"},
	{0, 3, 0}:  {"pres", "Pressure", "Pa"},
	{0, 3, 1}:  {"prmsl", "Pressure reduced to mean sea level", "Pa"},
	{0, 3, 5}:  {"hgt", "Geopotential height", "gpm"},
	{0, 6, 1}:  {"tcdc", "Total cloud cover", "%"},
	{0, 7, 6}:  {"cape", "Convective available potential energy", "J/kg"},
}

// level names a fixed surface (code table 4.5): an id part and words.
func level(typ int, v float64) (id, words string) {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch typ {
	case 1:
		return "surface", "at the surface"
	case 6:
		return "maxwind", "at the level of maximum wind"
	case 7:
		return "tropopause", "at the tropopause"
	case 101:
		return "msl", "at mean sea level"
	case 200:
		return "atmosphere", "over the entire atmosphere"
	}
	if math.IsNaN(v) {
		return fmt.Sprintf("level%d", typ), fmt.Sprintf("at level type %d", typ)
	}
	switch typ {
	case 100:
		return num(v/100) + "hpa", "at " + num(v/100) + " hPa"
	case 102:
		return num(v) + "m-amsl", "at " + num(v) + " m above mean sea level"
	case 103:
		return num(v) + "m", "at " + num(v) + " m above ground"
	case 106:
		return num(v) + "m-depth", "at " + num(v) + " m below land surface"
	}
	return fmt.Sprintf("level%d-%s", typ, num(v)), fmt.Sprintf("at level type %d value %s", typ, num(v))
}

// Variable returns the variable of a field: its id (lower case, for
// example "ugrd-10m", "tmp-850hpa"), name and unit.
func (f *Field) Variable() (id, name, unit string) {
	if f.Label != nil {
		return f.Label.ID, f.Label.Name, f.Label.Unit
	}
	lid, lwords := level(f.SurfaceType, f.SurfaceValue)
	if f.Surface2Type != 255 {
		id2, words2 := level(f.Surface2Type, f.Surface2Value)
		lid, lwords = lid+"-to-"+id2, "from "+strings.TrimPrefix(lwords, "at ")+" to "+strings.TrimPrefix(words2, "at ")
	}
	p, ok := params[[3]int{f.Discipline, f.Category, f.Number}]
	if !ok {
		p = param{element: fmt.Sprintf("d%d-c%d-p%d", f.Discipline, f.Category, f.Number),
			name: fmt.Sprintf("GRIB2 parameter %d of category %d, discipline %d", f.Number, f.Category, f.Discipline)}
	}
	id = strings.ReplaceAll(p.element+"-"+lid, ".", "p")
	return id, p.name + " " + lwords, p.unit
}

// attribution names the producer of the field's data.
func (f *Field) attribution() string {
	if f.Label != nil {
		return f.Label.Attribution
	}
	return attribution(f.Centre)
}

// model names the model that made the field.
func (f *Field) model() string {
	if f.Label != nil {
		return f.Label.Model
	}
	return model(f.Centre, f.Process)
}

// attribution names the producer of a centre's data (code table C-11).
func attribution(centre int) string {
	switch centre {
	case 7:
		return "NOAA National Centers for Environmental Prediction (NCEP), public domain"
	case 98:
		return "European Centre for Medium-Range Weather Forecasts (ECMWF)"
	case 54:
		return "Canadian Meteorological Centre"
	}
	return fmt.Sprintf("GRIB2 originating centre %d", centre)
}

// model names a centre's model (its generating process).
func model(centre, process int) string {
	if centre == 7 && (process == 81 || process == 96) {
		return "GFS"
	}
	return fmt.Sprintf("centre %d model %d", centre, process)
}
