package geocode

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paulmach/orb"
)

// Documented limits of geocoding requests.
const (
	MaxQueryRunes    = 256 // runes of one forward query
	MaxQueryTokens   = 20  // tokens of one forward query
	MaxBatch         = 50  // queries of one batch
	MaxLanguages     = 20  // language codes
	MaxLimit         = 10  // results
	DefaultLimit     = 5   // forward results
	DefaultRevLimit  = 1   // reverse results (per type without limit)
	MaxPathBytes     = 8192
	ReverseNearestKM = 1.0 // radius of reverse nearest-neighbour search (limit > 1)
)

// ErrInvalidRequest is wrapped by every validation error of ParseRequest
// (and of the search methods); the HTTP layer answers 400 with its message.
var ErrInvalidRequest = errors.New("invalid geocoding request")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// Kind tells the four path shapes apart.
type Kind int

// Request kinds.
const (
	KindForward Kind = iota + 1
	KindReverse
	KindID
	KindBatch
)

func (k Kind) String() string {
	switch k {
	case KindForward:
		return "forward"
	case KindReverse:
		return "reverse"
	case KindID:
		return "id"
	case KindBatch:
		return "batch"
	}
	return "unknown"
}

// ForwardQuery is a search by name.
type ForwardQuery struct {
	Text string
	// Limit is the maximum number of results (1..10); 0 means DefaultLimit.
	Limit int
	// BBox restricts results to features whose center lies inside
	// [w, s, e, n]; w > e crosses the antimeridian.
	BBox *[4]float64
	// Proximity biases the ranking toward a point.
	Proximity *orb.Point
	// ProximityIP records proximity=ip: the server sets Proximity to the
	// caller's place when it can locate the caller (Request.Located), else
	// it is ignored.
	ProximityIP bool
	// Countries restricts results to these ISO alpha-2 codes (upper case).
	Countries []string
	// Types filters feature types (all when empty); with ExcludeTypes the
	// listed types are removed instead.
	Types        []PlaceType
	ExcludeTypes bool
	// NoFuzzy disables typo tolerance (fuzzyMatch=false).
	NoFuzzy bool
	// NoAutocomplete disables prefix matching of the last token (autocomplete=false).
	NoAutocomplete bool
	// Languages are the preferred languages; the first is used for matching.
	Languages []string
	// Worldview is one of the Worldviews ("" means default).
	Worldview string
}

// ReverseQuery is a search by coordinates.
type ReverseQuery struct {
	Lon, Lat float64
	// Limit: 0 (unset) returns the best feature of each type at the point;
	// above 1 it requires exactly one type and returns the nearest features of
	// that type within ReverseNearestKM.
	Limit        int
	Types        []PlaceType
	ExcludeTypes bool
	Languages    []string
	Worldview    string
}

// IDOptions are the options of a lookup by id.
type IDOptions struct {
	Languages []string
	Worldview string
}

// Request is a parsed geocoding request; exactly one of the fields matching
// Kind is set.
type Request struct {
	Kind    Kind
	Forward *ForwardQuery
	Reverse *ReverseQuery
	ID      string
	IDOpts  IDOptions
	Batch   []Request
}

// Worldviews are the accepted worldview values. This index is built from
// Natural Earth's de facto boundaries and has one view of the world:
//   - default: countries as Natural Earth draws them; territories Natural
//     Earth leaves without an ISO code (Somaliland, Northern Cyprus, ...)
//     are not countries and give no country in reverse geocoding.
//   - auto: the view of the client's country (WorldviewFor), which the
//     server resolves from the caller's address when it has an IP
//     database; without one it behaves as default.
//   - ae, ch, jp, kr, us: accepted and reported, results as default (the
//     sources carry no per-country boundary claims).
var Worldviews = []string{"default", "auto", "ae", "ch", "jp", "kr", "us"}

// WorldviewFor is the worldview worldview=auto takes for a client in the
// country of that ISO alpha-2 code: the country's own when it is one of the
// Worldviews, else default.
func WorldviewFor(countryCode string) string {
	v := strings.ToLower(countryCode)
	if len(v) == 2 && slices.Contains(Worldviews, v) {
		return v
	}
	return "default"
}

// Located fills what depends on the caller's place: proximity=ip becomes a
// proximity at (lon, lat) and worldview=auto the view of the country, in
// the request and every query of a batch.
func (r *Request) Located(lon, lat float64, countryCode string) {
	if r.Forward != nil && r.Forward.ProximityIP && r.Forward.Proximity == nil {
		r.Forward.Proximity = &orb.Point{lon, lat}
	}
	if w := worldviewOf(r); w != nil && *w == "auto" {
		*w = WorldviewFor(countryCode)
	}
	for i := range r.Batch {
		r.Batch[i].Located(lon, lat, countryCode)
	}
}

// NeedsLocation tells whether the request (or a query of its batch) uses
// proximity=ip or worldview=auto.
func (r *Request) NeedsLocation() bool {
	if r.Forward != nil && r.Forward.ProximityIP && r.Forward.Proximity == nil {
		return true
	}
	if w := worldviewOf(r); w != nil && *w == "auto" {
		return true
	}
	for i := range r.Batch {
		if r.Batch[i].NeedsLocation() {
			return true
		}
	}
	return false
}

// worldviewOf points at the request's worldview (nil for a batch).
func worldviewOf(r *Request) *string {
	switch {
	case r.Forward != nil:
		return &r.Forward.Worldview
	case r.Reverse != nil:
		return &r.Reverse.Worldview
	case r.Kind == KindID:
		return &r.IDOpts.Worldview
	}
	return nil
}

// languageCodes are the ISO 639-1 codes the spec allows, plus "ru": the
// spec's list omits Russian (every other ISO 639-1 code is there), which is
// taken as an oversight.
var languageCodes = strings.Fields(`aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs
cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie
ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn
mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm
sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu`)

// ValidLanguage reports whether code is an allowed ISO 639-1 code.
func ValidLanguage(code string) bool {
	_, ok := slices.BinarySearch(languageCodes, code)
	return ok
}

var (
	reverseRe = regexp.MustCompile(`^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*,\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*$`)
	idRe      = regexp.MustCompile(`^([a-z_]+)\.(\d{1,19})$`)
)

// ParseRequest parses a geocoding request. path is the escaped path segment
// after "/geocoding/" (as in url.URL.EscapedPath), with or without the
// ".json" suffix; query holds the query parameters; acceptLanguage is the
// Accept-Language header, used when the language parameter is absent.
//
// The path shape is decided as follows:
//  1. a literal (unescaped) ';' makes a batch: the items are split on ';'
//     and each is classified by rules 2-4 (at most MaxBatch, none empty);
//  2. "<number>,<number>" (optional spaces) is a reverse query, longitude
//     first; out-of-range coordinates are an error, not a text search;
//  3. "<place type>.<digits>" with a known place type is an id lookup;
//  4. anything else is a forward search.
//
// Parameters that do not apply to the request's kind are ignored; unknown
// parameters are ignored; every applicable parameter is validated.
func ParseRequest(path string, query url.Values, acceptLanguage string) (Request, error) {
	if len(path) > MaxPathBytes {
		return Request{}, invalid("query too long")
	}
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(path, ".json")
	p, err := parseParams(query, acceptLanguage)
	if err != nil {
		return Request{}, err
	}
	if strings.Contains(path, ";") {
		parts := strings.Split(path, ";")
		if len(parts) > MaxBatch {
			return Request{}, invalid("a batch holds at most %d queries, got %d", MaxBatch, len(parts))
		}
		req := Request{Kind: KindBatch, Batch: make([]Request, 0, len(parts))}
		for i, part := range parts {
			item, err := parseItem(part, p)
			if err != nil {
				return Request{}, fmt.Errorf("batch query %d: %w", i+1, err)
			}
			req.Batch = append(req.Batch, item)
		}
		return req, nil
	}
	return parseItem(path, p)
}

func parseItem(escaped string, p *params) (Request, error) {
	text, err := url.PathUnescape(escaped)
	if err != nil {
		return Request{}, invalid("malformed escape in query %q", escaped)
	}
	if !utf8.ValidString(text) {
		return Request{}, invalid("query is not valid UTF-8")
	}
	if strings.TrimSpace(text) == "" {
		return Request{}, invalid("empty query")
	}
	if m := reverseRe.FindStringSubmatch(text); m != nil {
		lon, err1 := strconv.ParseFloat(m[1], 64)
		lat, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			return Request{}, invalid("malformed coordinates %q", text)
		}
		if lon < -180 || lon > 180 {
			return Request{}, invalid("longitude %v out of range -180..180", lon)
		}
		if lat < -90 || lat > 90 {
			return Request{}, invalid("latitude %v out of range -90..90", lat)
		}
		rq := &ReverseQuery{Lon: lon, Lat: lat, Limit: p.limit, Types: p.types, ExcludeTypes: p.excludeTypes,
			Languages: p.languages, Worldview: p.worldview}
		if err := rq.validate(); err != nil {
			return Request{}, err
		}
		return Request{Kind: KindReverse, Reverse: rq}, nil
	}
	if m := idRe.FindStringSubmatch(text); m != nil {
		if _, ok := ParsePlaceType(m[1]); ok {
			if _, err := strconv.ParseUint(m[2], 10, 64); err != nil {
				return Request{}, invalid("id number out of range in %q", text)
			}
			return Request{Kind: KindID, ID: text, IDOpts: IDOptions{Languages: p.languages, Worldview: p.worldview}}, nil
		}
	}
	fq := &ForwardQuery{Text: text, Limit: p.limit, BBox: p.bbox, Proximity: p.proximity, ProximityIP: p.proximityIP,
		Countries: p.countries, Types: p.types, ExcludeTypes: p.excludeTypes, NoFuzzy: !p.fuzzy,
		NoAutocomplete: !p.autocomplete, Languages: p.languages, Worldview: p.worldview}
	if err := fq.validate(); err != nil {
		return Request{}, err
	}
	return Request{Kind: KindForward, Forward: fq}, nil
}

// validate checks a forward query built by hand or by ParseRequest.
func (q *ForwardQuery) validate() error {
	if utf8.RuneCountInString(q.Text) > MaxQueryRunes {
		return invalid("query too long: more than %d characters", MaxQueryRunes)
	}
	if n := countTokens(q.Text); n > MaxQueryTokens {
		return invalid("query too long: %d words, at most %d", n, MaxQueryTokens)
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		return invalid("limit must be between 1 and %d", MaxLimit)
	}
	if q.BBox != nil {
		if err := checkBBox(*q.BBox); err != nil {
			return err
		}
	}
	if q.Proximity != nil && !validLonLat(q.Proximity[0], q.Proximity[1]) {
		return invalid("proximity out of range")
	}
	return checkCommon(q.Types, q.Languages, q.Worldview)
}

func (q *ReverseQuery) validate() error {
	if !validLonLat(q.Lon, q.Lat) {
		return invalid("coordinates out of range")
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		return invalid("limit must be between 1 and %d", MaxLimit)
	}
	if q.Limit > 1 && (len(q.Types) != 1 || q.ExcludeTypes) {
		return invalid("reverse geocoding with limit above 1 needs exactly one value in types")
	}
	return checkCommon(q.Types, q.Languages, q.Worldview)
}

func checkCommon(types []PlaceType, langs []string, worldview string) error {
	for i, t := range types {
		if t.String() == "" {
			return invalid("unknown place type")
		}
		if slices.Contains(types[:i], t) {
			return invalid("duplicated type %q", t)
		}
	}
	if len(langs) > MaxLanguages {
		return invalid("at most %d languages", MaxLanguages)
	}
	for i, l := range langs {
		if !ValidLanguage(l) {
			return invalid("unknown language %q", l)
		}
		if slices.Contains(langs[:i], l) {
			return invalid("duplicated language %q", l)
		}
	}
	if worldview != "" && !slices.Contains(Worldviews, worldview) {
		return invalid("unknown worldview %q", worldview)
	}
	return nil
}

func validLonLat(lon, lat float64) bool {
	return lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90 && !math.IsNaN(lon) && !math.IsNaN(lat)
}

func checkBBox(b [4]float64) error {
	if !validLonLat(b[0], b[1]) || !validLonLat(b[2], b[3]) {
		return invalid("bbox out of range")
	}
	if b[1] > b[3] {
		return invalid("bbox south %v above north %v", b[1], b[3])
	}
	return nil
}

func countTokens(s string) int {
	return len(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) }))
}

type params struct {
	limit        int
	bbox         *[4]float64
	proximity    *orb.Point
	proximityIP  bool
	countries    []string
	types        []PlaceType
	excludeTypes bool
	fuzzy        bool
	autocomplete bool
	languages    []string
	worldview    string
}

// single returns the only value of parameter name; a repeated parameter is an error.
func single(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) != 1 {
		return "", false, invalid("parameter %s given %d times", name, len(vs))
	}
	return vs[0], true, nil
}

func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, invalid("%s must be true or false, got %q", name, v)
}

func parseNumbers(name, v string, n int) ([]float64, error) {
	parts := strings.Split(v, ",")
	if len(parts) != n {
		return nil, invalid("%s must be %d comma-separated numbers", name, n)
	}
	out := make([]float64, n)
	for i, s := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalid("%s: %q is not a number", name, s)
		}
		out[i] = f
	}
	return out, nil
}

func parseParams(q url.Values, acceptLanguage string) (*params, error) {
	p := &params{fuzzy: true, autocomplete: true}
	for _, name := range []string{"bbox", "proximity", "language", "country", "limit", "types", "excludeTypes",
		"fuzzyMatch", "autocomplete", "worldview"} {
		v, ok, err := single(q, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch name {
		case "bbox":
			b, err := parseNumbers(name, v, 4)
			if err != nil {
				return nil, err
			}
			bb := [4]float64{b[0], b[1], b[2], b[3]}
			if err := checkBBox(bb); err != nil {
				return nil, err
			}
			p.bbox = &bb
		case "proximity":
			if strings.EqualFold(v, "ip") {
				p.proximityIP = true
				continue
			}
			c, err := parseNumbers(name, v, 2)
			if err != nil {
				return nil, err
			}
			if !validLonLat(c[0], c[1]) {
				return nil, invalid("proximity %v,%v out of range", c[0], c[1])
			}
			p.proximity = &orb.Point{c[0], c[1]}
		case "language":
			langs, err := parseList(name, v, MaxLanguages, func(s string) (string, error) {
				s = strings.ToLower(s)
				if !ValidLanguage(s) {
					return "", invalid("unknown language code %q", s)
				}
				return s, nil
			})
			if err != nil {
				return nil, err
			}
			p.languages = langs
			if p.languages == nil {
				p.languages = []string{} // given but empty: no preference
			}
		case "country":
			cs, err := parseList(name, v, 300, func(s string) (string, error) {
				if len(s) != 2 || !isASCIILetters(s) {
					return "", invalid("country must be ISO 3166-1 alpha-2 codes, got %q", s)
				}
				return strings.ToUpper(s), nil
			})
			if err != nil {
				return nil, err
			}
			p.countries = cs
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxLimit {
				return nil, invalid("limit must be an integer between 1 and %d, got %q", MaxLimit, v)
			}
			p.limit = n
		case "types":
			names, err := parseList(name, v, int(numTypes), func(s string) (string, error) {
				if _, ok := ParsePlaceType(s); !ok {
					return "", invalid("unknown type %q", s)
				}
				return s, nil
			})
			if err != nil {
				return nil, err
			}
			for _, s := range names {
				t, _ := ParsePlaceType(s)
				p.types = append(p.types, t)
			}
		case "excludeTypes":
			if p.excludeTypes, err = parseBool(name, v); err != nil {
				return nil, err
			}
		case "fuzzyMatch":
			if p.fuzzy, err = parseBool(name, v); err != nil {
				return nil, err
			}
		case "autocomplete":
			if p.autocomplete, err = parseBool(name, v); err != nil {
				return nil, err
			}
		case "worldview":
			if !slices.Contains(Worldviews, v) {
				return nil, invalid("worldview must be one of %s, got %q", strings.Join(Worldviews, ", "), v)
			}
			p.worldview = v
		}
	}
	if _, ok := q["language"]; !ok {
		p.languages = ParseAcceptLanguage(acceptLanguage)
	}
	return p, nil
}

// parseList splits a comma-separated list, checking each item, uniqueness
// and the maximum count. An empty value gives an empty list.
func parseList(name, v string, max int, check func(string) (string, error)) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) > max {
		return nil, invalid("%s: at most %d values", name, max)
	}
	out := make([]string, 0, len(parts))
	for _, s := range parts {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, invalid("%s: empty value", name)
		}
		c, err := check(s)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, c) {
			return nil, invalid("%s: %q given twice", name, c)
		}
		out = append(out, c)
	}
	return out, nil
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// ParseAcceptLanguage returns the allowed ISO 639-1 primary codes of an
// Accept-Language header, by descending quality (order kept on ties),
// without duplicates, at most MaxLanguages. Invalid entries are skipped.
func ParseAcceptLanguage(h string) []string {
	if len(h) > 4096 {
		h = h[:4096]
	}
	type tag struct {
		code string
		q    float64
		i    int
	}
	var tags []tag
	for i, part := range strings.Split(h, ",") {
		if i > 100 {
			break
		}
		lang, qs, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if qs = strings.TrimSpace(qs); strings.HasPrefix(qs, "q=") {
			v, err := strconv.ParseFloat(qs[2:], 64)
			if err != nil || v < 0 || v > 1 {
				continue
			}
			q = v
		}
		primary, _, _ := strings.Cut(strings.TrimSpace(lang), "-")
		primary = strings.ToLower(primary)
		if q == 0 || !ValidLanguage(primary) {
			continue
		}
		tags = append(tags, tag{primary, q, i})
	}
	sort.SliceStable(tags, func(a, b int) bool { return tags[a].q > tags[b].q })
	var out []string
	for _, t := range tags {
		if !slices.Contains(out, t.code) && len(out) < MaxLanguages {
			out = append(out, t.code)
		}
	}
	return out
}
