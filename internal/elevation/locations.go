package elevation

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Limits of the elevation endpoint (spec 002, Elevation).
const (
	MaxLocations = 50
	MaxLat       = 85.0
)

// ErrInvalid is wrapped by every error about a request's parameters.
var ErrInvalid = errors.New("invalid elevation request")

// Unit is the unit of the elevations answered.
type Unit int

// The units.
const (
	Meters Unit = iota
	Feet
)

// FeetPerMeter converts metres to international feet.
const FeetPerMeter = 1 / 0.3048

// ParseUnit reads the unit parameter (the caller passes "meters" when it is
// absent; an empty value is refused).
func ParseUnit(s string) (Unit, error) {
	switch s {
	case "meters":
		return Meters, nil
	case "feet":
		return Feet, nil
	}
	return 0, fmt.Errorf("%w: unit must be meters or feet, got %q", ErrInvalid, s)
}

// Convert turns metres into the unit.
func (u Unit) Convert(m float64) float64 {
	if u == Feet {
		return m * FeetPerMeter
	}
	return m
}

// Point is a queried position.
type Point struct{ Lon, Lat float64 }

// ParseLocations reads "lng,lat;lng,lat;..." (at most MaxLocations
// positions, longitude greater than -180 and less than 180, latitude from
// -85 to 85 inclusive).
func ParseLocations(s string) ([]Point, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: no locations", ErrInvalid)
	}
	// Count first: a path of thousands of separators is refused without
	// allocating for each.
	n := strings.Count(s, ";") + 1
	if n > MaxLocations {
		return nil, fmt.Errorf("%w: %d locations, at most %d", ErrInvalid, n, MaxLocations)
	}
	out := make([]Point, 0, n)
	for i, rest, more := 0, s, true; more; i++ {
		var part string
		part, rest, more = strings.Cut(rest, ";")
		lonS, latS, ok := strings.Cut(part, ",")
		if !ok || strings.Contains(latS, ",") {
			return nil, fmt.Errorf("%w: location %d (%q) is not lng,lat", ErrInvalid, i+1, part)
		}
		lon, err1 := parseCoord(lonS)
		lat, err2 := parseCoord(latS)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: location %d (%q) is not two numbers lng,lat", ErrInvalid, i+1, part)
		}
		if !(lon > -180 && lon < 180) || !(lat >= -MaxLat && lat <= MaxLat) {
			return nil, fmt.Errorf("%w: location %d (%s) is out of bounds: longitude must be greater than -180 and less than 180, latitude from -85 to 85", ErrInvalid, i+1, part)
		}
		out = append(out, Point{Lon: lon, Lat: lat})
	}
	return out, nil
}

// parseCoord reads a decimal number (no infinities, NaN or hex forms).
func parseCoord(s string) (float64, error) {
	if s == "" || len(s) > 64 || strings.ContainsAny(s, "xXpPnNiI_") {
		return 0, strconv.ErrSyntax
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, strconv.ErrSyntax
	}
	return v, nil
}

// Query answers the elevations of points as [lng, lat, elevation] triples
// in the unit, rounded to 0.1. A point where no grid has a value (possible
// only without a global model) is an error.
func (m *Model) Query(pts []Point, unit Unit) ([][3]float64, error) {
	out := make([][3]float64, len(pts))
	for i, p := range pts {
		v, _, ok := m.At(p.Lon, p.Lat)
		if !ok {
			return nil, fmt.Errorf("%w: no elevation data at %g,%g", ErrNoData, p.Lon, p.Lat)
		}
		out[i] = [3]float64{p.Lon, p.Lat, math.Round(unit.Convert(v)*10) / 10}
	}
	return out, nil
}

// ErrNoData tells that no model covers a point.
var ErrNoData = errors.New("no elevation data")
