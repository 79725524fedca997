package geocode

import (
	"math"
)

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func popScore(pop uint64, full float64) float64 {
	return clamp01(math.Log10(float64(pop)+1) / full)
}

// importance scores a feature in 0..1 from its type, population and rank.
func importance(f *bfeat) float64 {
	switch f.typ {
	case TypeCountry:
		return 0.6 + 0.4*popScore(f.pop, 9)
	case TypeRegion:
		return 0.45 + 0.35*popScore(f.pop, 8)
	case TypeSubregion:
		return 0.3 + 0.3*popScore(f.pop, 7.5)
	case TypeNeighbourhood:
		return 0.7 * popScore(f.pop, 7.3)
	case TypePlace:
		return 0.5 * popScore(f.pop, 7.3)
	case TypePostalCode:
		return 0.3 + 0.1*popScore(f.pop, 7)
	case TypeRoad:
		return 0.2
	case TypePOI:
		return 0.2 + 0.2*popScore(f.pop, 7)
	case TypeAddress:
		return 0.12
	case TypeMunicipality, TypeMunicipalDistrict, TypeCounty, TypeJointMunicipality, TypeJointSubmunicipality:
		return 0.3 + 0.5*popScore(f.pop, 7.3)
	}
	v := 0.85*popScore(f.pop, 7.3) + []float64{0, 0.01, 0.03, 0.06, 0.12}[min(f.capital, 4)]
	return clamp01(v)
}
