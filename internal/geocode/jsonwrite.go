package geocode

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/jsonappend"
)

// The results are written by hand into one buffer: encoding/json would
// marshal each value on its own and then check and compact the output of
// every MarshalJSON, which was a quarter of a search's time. The bytes are
// those encoding/json writes (HTML-safe escaping, its float format); a test
// holds them equal.

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(b []byte, s string) []byte { return jsonappend.String(b, s) }

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...) // never in results; encoding/json would fail
	}
	return jsonappend.Float(b, f)
}

func appendStrings(b []byte, ss []string) []byte { return jsonappend.Elements(b, ss, appendString) }

func appendFloats(b []byte, fs []float64) []byte { return jsonappend.Elements(b, fs, appendFloat) }

// objWriter writes a JSON object member by member, in order, into a
// buffer it may share with the writer of an enclosing document.
type objWriter struct {
	b   []byte
	n   int
	err error
}

func (w *objWriter) key(k string) {
	if w.n == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = appendString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *objWriter) raw(key string, v []byte) {
	w.key(key)
	w.b = append(w.b, v...)
}

// val writes a member; the types of the results are written directly,
// anything else through encoding/json.
func (w *objWriter) val(key string, v any) {
	w.key(key)
	switch t := v.(type) {
	case string:
		w.b = appendString(w.b, t)
	case float64:
		w.b = appendFloat(w.b, t)
	case [2]float64:
		w.b = appendFloats(w.b, t[:])
	case [4]float64:
		w.b = appendFloats(w.b, t[:])
	case []string:
		if t == nil {
			w.b = append(w.b, "null"...)
		} else {
			w.b = appendStrings(w.b, t)
		}
	case Properties:
		w.b = t.appendJSON(w.b)
	case []Context:
		w.b = jsonappend.Elements(w.b, t, func(b []byte, c Context) []byte { return c.appendJSON(b) })
	default:
		enc, err := json.Marshal(v)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.b = append(w.b, enc...)
	}
}

func (w *objWriter) str(key, v string, omitEmpty bool) {
	if v == "" && omitEmpty {
		return
	}
	w.key(key)
	w.b = appendString(w.b, v)
}

func (w *objWriter) done() []byte {
	if w.n == 0 {
		w.b = append(w.b, '{')
	}
	return append(w.b, '}')
}

// props writes the members of Properties inline (a context item's).
func (w *objWriter) props(p *Properties) {
	w.str("ref", p.Ref, false)
	w.str("country_code", p.CountryCode, false)
	w.str("kind", p.Kind, true)
	if len(p.Categories) > 0 {
		w.key("categories")
		w.b = appendStrings(w.b, p.Categories)
	}
	if len(p.FeatureTags) > 0 {
		w.key("feature_tags")
		w.b = appendStringMap(w.b, p.FeatureTags)
	}
	w.str("place_designation", p.PlaceDesignation, true)
	if len(p.Postcodes) > 0 {
		w.key("postcodes")
		w.b = appendStrings(w.b, p.Postcodes)
	}
	if len(p.Sources) > 0 {
		w.key("sources")
		w.b = appendStringMap(w.b, p.Sources)
	}
}

// appendStringMap writes a map with sorted keys, as encoding/json does.
func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

// appendJSON writes Properties as its struct tags say.
func (p Properties) appendJSON(b []byte) []byte {
	w := objWriter{b: b}
	w.props(&p)
	return w.done()
}

// appendJSON writes the context item with its properties inline and the
// dynamic text_xx / language_xx members.
func (c Context) appendJSON(b []byte) []byte {
	w := objWriter{b: b}
	w.str("id", c.ID, false)
	w.str("text", c.Text, false)
	w.str("language", c.Language, true)
	for _, l := range c.Localized {
		w.str("text_"+l.Lang, l.Text, false)
		w.str("language_"+l.Lang, l.Language, true)
	}
	w.props(&c.Properties)
	return w.done()
}

// appendJSON writes the feature with the spec's member names, including
// the dynamic text_xx, language_xx and place_name_xx members.
func (f Feature) appendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("type", "Feature", false)
	w.str("id", f.ID, false)
	w.str("text", f.Text, false)
	w.str("language", f.Language, true)
	for _, l := range f.Localized {
		w.str("text_"+l.Lang, l.Text, false)
		w.str("language_"+l.Lang, l.Language, true)
		w.str("place_name_"+l.Lang, l.PlaceName, false)
	}
	w.key("properties")
	w.b = f.Properties.appendJSON(w.b)
	geom := f.Geometry
	if geom == nil {
		geom = orb.Point(f.Center)
	}
	var g bytes.Buffer
	if err := writeGeometry(&g, geom, 0); err != nil {
		return b, err
	}
	w.raw("geometry", g.Bytes())
	w.val("bbox", f.BBox)
	w.val("center", f.Center)
	w.str("place_name", f.PlaceName, false)
	w.str("matching_place_name", f.MatchingPlaceName, true)
	w.str("matching_text", f.MatchingText, true)
	w.key("place_type")
	w.b = appendStrings(w.b, f.PlaceType)
	w.key("place_type_name")
	w.b = appendStrings(w.b, f.PlaceTypeName)
	w.raw("relevance", strconv.AppendFloat(nil, f.Relevance, 'f', -1, 64))
	if len(f.Context) > 0 {
		w.val("context", f.Context)
	}
	w.str("address", f.Address, true)
	return w.done(), w.err
}

// appendJSON writes the collection; a nil feature or query list is written
// as an empty array.
func (r SearchResults) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":"FeatureCollection","features":[`...)
	var err error
	for i, f := range r.Features {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = f.appendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"query":`...)
	b = appendStrings(b, r.Query)
	b = append(b, `,"attribution":`...)
	b = appendString(b, r.Attribution)
	return append(b, '}'), nil
}
