package geocode

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/paulmach/orb"
)

// PlaceType is a feature type of the spec's PlaceType list.
type PlaceType uint8

// Place types, in the spec's order (broadest first).
const (
	TypeInvalid PlaceType = iota
	TypeContinentalMarine
	TypeCountry
	TypeMajorLandform
	TypeRegion
	TypeSubregion
	TypeCounty
	TypeJointMunicipality
	TypeJointSubmunicipality
	TypeMunicipality
	TypeMunicipalDistrict
	TypeLocality
	TypeNeighbourhood
	TypePlace
	TypePostalCode
	TypeAddress
	TypeRoad
	TypePOI
	numTypes
)

var typeNames = [numTypes]string{"", "continental_marine", "country", "major_landform", "region", "subregion",
	"county", "joint_municipality", "joint_submunicipality", "municipality", "municipal_district", "locality",
	"neighbourhood", "place", "postal_code", "address", "road", "poi"}

// typeLabels are the English display names reported in place_type_name.
var typeLabels = [numTypes]string{"", "Continental marine area", "Country", "Major landform", "Region", "Subregion",
	"County", "Joint municipality", "Joint submunicipality", "Municipality", "Municipal district", "Locality",
	"Neighbourhood", "Place", "Postal code", "Address", "Road", "Point of interest"}

// localizedLabels are place_type_name in a few more languages (English
// otherwise), indexed like typeLabels.
var localizedLabels = map[string][numTypes]string{
	"de": {"", "Meeresgebiet", "Land", "Landform", "Region", "Unterregion", "Landkreis", "Gemeindeverband",
		"Gemeindeteilverband", "Gemeinde", "Gemeindebezirk", "Ort", "Stadtviertel", "Platz", "Postleitzahl",
		"Adresse", "Straße", "Sehenswürdigkeit"},
	"fr": {"", "Zone maritime", "Pays", "Relief", "Région", "Sous-région", "Comté", "Intercommunalité",
		"Groupement de quartiers", "Commune", "Arrondissement", "Localité", "Quartier", "Lieu", "Code postal",
		"Adresse", "Route", "Point d'intérêt"},
	"es": {"", "Zona marítima", "País", "Accidente geográfico", "Región", "Subregión", "Condado", "Mancomunidad",
		"Submancomunidad", "Municipio", "Distrito municipal", "Localidad", "Barrio", "Lugar", "Código postal",
		"Dirección", "Calle", "Punto de interés"},
	"it": {"", "Zona marittima", "Paese", "Rilievo", "Regione", "Sottoregione", "Contea", "Unione di comuni",
		"Unione di frazioni", "Comune", "Municipio", "Località", "Quartiere", "Luogo", "Codice postale",
		"Indirizzo", "Strada", "Punto di interesse"},
	"pt": {"", "Zona marítima", "País", "Relevo", "Região", "Sub-região", "Condado", "Associação de municípios",
		"Associação de freguesias", "Município", "Distrito municipal", "Localidade", "Bairro", "Lugar",
		"Código postal", "Endereço", "Rua", "Ponto de interesse"},
}

// Label returns the display name of t in lang (English when unknown).
func (t PlaceType) Label(lang string) string {
	if t >= numTypes {
		return ""
	}
	if l, ok := localizedLabels[lang]; ok {
		return l[t]
	}
	return typeLabels[t]
}

// String returns the spec's name of t ("" for TypeInvalid).
func (t PlaceType) String() string {
	if t >= numTypes {
		return ""
	}
	return typeNames[t]
}

// ParsePlaceType returns the PlaceType named s.
func ParsePlaceType(s string) (PlaceType, bool) {
	for i := TypeContinentalMarine; i < numTypes; i++ {
		if typeNames[i] == s {
			return i, true
		}
	}
	return TypeInvalid, false
}

// AllPlaceTypes lists every place type in the spec's order.
func AllPlaceTypes() []PlaceType {
	out := make([]PlaceType, 0, numTypes-1)
	for i := TypeContinentalMarine; i < numTypes; i++ {
		out = append(out, i)
	}
	return out
}

// SearchResults is the response of one geocoding query (spec: SearchResults).
type SearchResults struct {
	Type        string    `json:"type"` // always "FeatureCollection"
	Features    []Feature `json:"features"`
	Query       []string  `json:"query"`
	Attribution string    `json:"attribution"`
}

// Localized is one requested language's variant of a text: it becomes the
// dynamic members text_<Lang>, language_<Lang> and place_name_<Lang>.
type Localized struct {
	Lang      string // requested ISO 639-1 code
	Text      string
	Language  string // language of Text (the fallback's when not Lang); "" unknown
	PlaceName string // empty in context items
}

// Properties are a feature's properties (spec: FeatureProperties).
type Properties struct {
	Ref              string            `json:"ref"`
	CountryCode      string            `json:"country_code"`
	Kind             string            `json:"kind,omitempty"`
	Categories       []string          `json:"categories,omitempty"`
	FeatureTags      map[string]string `json:"feature_tags,omitempty"`
	PlaceDesignation string            `json:"place_designation,omitempty"`
	// Postcodes are a place's postal codes (national data: France).
	Postcodes []string `json:"postcodes,omitempty"`
	// Sources says where a place's name and position come from when it is
	// more than GeoNames: {"name": "insee:69123", "position": "geonames"}.
	Sources map[string]string `json:"sources,omitempty"`
}

// Context is one level of a feature's hierarchy (spec: Context item).
type Context struct {
	ID        string
	Text      string
	Language  string
	Localized []Localized
	Properties
}

// Feature is one result (spec: Feature).
type Feature struct {
	ID                string
	Text              string
	Language          string
	Localized         []Localized
	Properties        Properties
	Geometry          orb.Geometry
	BBox              [4]float64
	Center            [2]float64
	PlaceName         string
	MatchingPlaceName string
	MatchingText      string
	PlaceType         []string
	PlaceTypeName     []string
	Relevance         float64
	Context           []Context
	Address           string
}

// MarshalJSON writes the context item (see appendJSON).
func (c Context) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON writes the feature (see appendJSON).
func (f Feature) MarshalJSON() ([]byte, error) { return f.appendJSON(nil) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MarshalJSON writes the collection; a nil feature or query list is written
// as an empty array.
func (r SearchResults) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

// MarshalGeometry writes g as a GeoJSON geometry object.
func MarshalGeometry(g orb.Geometry) ([]byte, error) {
	var b bytes.Buffer
	if err := writeGeometry(&b, g, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writePos(b *bytes.Buffer, p orb.Point) {
	b.WriteByte('[')
	b.WriteString(strconv.FormatFloat(p[0], 'f', -1, 64))
	b.WriteByte(',')
	b.WriteString(strconv.FormatFloat(p[1], 'f', -1, 64))
	b.WriteByte(']')
}

func writeLine(b *bytes.Buffer, ps []orb.Point) {
	b.WriteByte('[')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		writePos(b, p)
	}
	b.WriteByte(']')
}

func writeRings(b *bytes.Buffer, rs []orb.Ring) {
	b.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeLine(b, r)
	}
	b.WriteByte(']')
}

func writeGeometry(b *bytes.Buffer, g orb.Geometry, depth int) error {
	if depth > 4 {
		return fmt.Errorf("marshal geometry: collections nested too deeply")
	}
	head := func(t string) { b.WriteString(`{"type":"` + t + `","coordinates":`) }
	switch g := g.(type) {
	case orb.Point:
		head("Point")
		writePos(b, g)
	case orb.MultiPoint:
		head("MultiPoint")
		writeLine(b, g)
	case orb.LineString:
		head("LineString")
		writeLine(b, g)
	case orb.MultiLineString:
		head("MultiLineString")
		b.WriteByte('[')
		for i, l := range g {
			if i > 0 {
				b.WriteByte(',')
			}
			writeLine(b, l)
		}
		b.WriteByte(']')
	case orb.Polygon:
		head("Polygon")
		writeRings(b, g)
	case orb.MultiPolygon:
		head("MultiPolygon")
		b.WriteByte('[')
		for i, p := range g {
			if i > 0 {
				b.WriteByte(',')
			}
			writeRings(b, p)
		}
		b.WriteByte(']')
	case orb.Collection:
		b.WriteString(`{"type":"GeometryCollection","geometries":[`)
		for i, c := range g {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeGeometry(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("]}")
		return nil
	default:
		return fmt.Errorf("marshal geometry: unsupported type %T", g)
	}
	b.WriteByte('}')
	return nil
}
