package coords

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tesseramaps/tessera/internal/strtab"
)

// ErrInvalid marks an error in a request's parameters (a 400).
var ErrInvalid = errors.New("invalid request")

// ErrNoPROJ tells that the build has no libproj (built without the "proj"
// tag or without cgo), or, in one with it, that libproj cannot be opened
// (errors.Is holds then): exports and transforms are not available.
var ErrNoPROJ = errors.New("this server was built without PROJ (libproj): build it with cgo and -tags proj (make build does when pkg-config finds proj)")

// requestError is an ErrInvalid whose message is only its own.
type requestError struct{ msg string }

func (e *requestError) Error() string        { return e.msg }
func (e *requestError) Is(target error) bool { return target == ErrInvalid }

func invalid(format string, args ...any) error {
	return &requestError{fmt.Sprintf(format, args...)}
}

// Search limits.
const (
	MaxQueryBytes = 256
	DefaultLimit  = 10
	MaxLimit      = 50
	MaxOffset     = 100000
)

// Kinds are the values of the kind filter.
var Kinds = []string{"*",
	"CRS", "CRS-PROJCRS", "CRS-GEOGCRS", "CRS-GEOG3DCRS", "CRS-GCENCRS", "CRS-VERTCRS", "CRS-ENGCRS", "CRS-COMPOUNDCRS", "CRS-DRVDCRS",
	"COORDOP", "COORDOP-COPTRAN", "COORDOP-COPCONO", "COORDOP-POIMOTO", "COORDOP-COPCON",
	"DATUM", "DATUM-VERTDAT", "DATUM-ENGDAT", "DATUM-GEODDAT", "DATUM-DYNGEODDA", "DATUM-ENSEMDAT",
	"ELLIPSOID", "PRIMEM", "METHOD",
	"CS", "CS-VERTCS", "CS-SPHERCS", "CS-CARTESCS", "CS-ELLIPCS", "CS-AFFINE", "CS-ORDINAL",
	"AXIS", "AREA",
	"UNIT", "UNIT-ANGUNIT", "UNIT-SCALEUNIT", "UNIT-LENUNIT", "UNIT-TIMEUNIT",
}

// SearchRequest is a parsed search.
type SearchRequest struct {
	// Terms are the folded plain terms; all must match.
	Terms []string
	// Kind is the kind filter ("CRS" by default).
	Kind string
	// Code and Trans are the code filters: "CODE" or "AUTHORITY:CODE".
	Code, Trans string
	// Deprecated is -1 for both, 0 for active only (default), 1 for
	// deprecated only.
	Deprecated      int
	Limit, Offset   int
	Transformations bool
	Exports         bool
}

// ParseSearch parses the query of /coordinates/search/{query}.json (path
// unescaped, ".json" removed) and the query parameters.
func ParseSearch(query string, params url.Values) (SearchRequest, error) {
	req := SearchRequest{Kind: "CRS", Limit: DefaultLimit}
	if len(query) > MaxQueryBytes {
		return req, invalid("query too long: %d bytes, at most %d", len(query), MaxQueryBytes)
	}
	if !utf8.ValidString(query) {
		return req, invalid("the query is not valid UTF-8")
	}
	seen := map[string]bool{}
	for _, tok := range strings.Fields(query) {
		k, v, ok := strings.Cut(tok, ":")
		lk := strings.ToLower(k)
		if ok && (lk == "kind" || lk == "code" || lk == "trans" || lk == "deprecated") {
			if seen[lk] {
				return req, invalid("the filter %s is given twice", lk)
			}
			seen[lk] = true
			if v == "" {
				return req, invalid("the filter %s has no value", lk)
			}
			switch lk {
			case "kind":
				kind, ok := parseKind(v)
				if !ok {
					return req, invalid("unknown kind %q: one of %s", v, strings.Join(Kinds, ", "))
				}
				req.Kind = kind
			case "code":
				c, err := parseCode(v)
				if err != nil {
					return req, invalid("code: %v", err)
				}
				req.Code = c
			case "trans":
				c, err := parseCode(v)
				if err != nil {
					return req, invalid("trans: %v", err)
				}
				req.Trans = c
			case "deprecated":
				switch v {
				case "*":
					req.Deprecated = -1
				case "0":
					req.Deprecated = 0
				case "1":
					req.Deprecated = 1
				default:
					return req, invalid("deprecated is *, 0 or 1, not %q", v)
				}
			}
			continue
		}
		// AUTHORITY:CODE is a code filter.
		if ok && isAuthority(k) && v != "" && !seen["code"] {
			c, err := parseCode(tok)
			if err == nil {
				seen["code"] = true
				req.Code = c
				continue
			}
		}
		req.Terms = append(req.Terms, Fold(tok))
	}
	var err error
	if req.Limit, err = intParam(params, "limit", DefaultLimit, 1, MaxLimit); err != nil {
		return req, err
	}
	if req.Offset, err = intParam(params, "offset", 0, 0, MaxOffset); err != nil {
		return req, err
	}
	if req.Transformations, err = boolParam(params, "transformations"); err != nil {
		return req, err
	}
	if req.Exports, err = boolParam(params, "exports"); err != nil {
		return req, err
	}
	return req, nil
}

func parseKind(v string) (string, bool) {
	u := strings.ToUpper(v)
	for _, k := range Kinds {
		if k == u {
			return k, true
		}
	}
	return "", false
}

func isAuthority(s string) bool {
	for _, a := range Authorities {
		if strings.EqualFold(a, s) {
			return true
		}
	}
	return false
}

// parseCode checks a code filter: CODE or AUTHORITY:CODE.
func parseCode(v string) (string, error) {
	if len(v) > 64 {
		return "", errors.New("too long")
	}
	auth, code, ok := strings.Cut(v, ":")
	if !ok {
		auth, code = "", v
	} else if !isAuthority(auth) {
		return "", fmt.Errorf("unknown authority %q: one of %s", auth, strings.Join(Authorities, ", "))
	}
	if code == "" || strings.ContainsAny(code, ":") {
		return "", fmt.Errorf("%q is not a code", v)
	}
	if auth == "" {
		return code, nil
	}
	return strings.ToUpper(auth) + ":" + code, nil
}

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	if len(vs) != 1 {
		return 0, invalid("%s is given %d times", name, len(vs))
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil {
		return 0, invalid("%s is not an integer: %q", name, vs[0])
	}
	if n < lo || n > hi {
		return 0, invalid("%s must be between %d and %d, not %d", name, lo, hi, n)
	}
	return n, nil
}

func boolParam(q url.Values, name string) (bool, error) {
	vs, ok := q[name]
	if !ok {
		return false, nil
	}
	if len(vs) != 1 {
		return false, invalid("%s is given %d times", name, len(vs))
	}
	switch strings.ToLower(vs[0]) {
	case "true", "1", "yes", "":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, invalid("%s is a boolean (true or false), not %q", name, vs[0])
}

// Exports are an object's definitions: a PROJ string and WKT2 (2019).
type Exports struct {
	Proj4 string `json:"proj4"`
	WKT   string `json:"wkt"`
}

// Exporter writes objects of the registry as PROJ strings and WKT.
type Exporter interface {
	Export(ctx context.Context, id Ref, cat Category) (Exports, error)
}

// Grid is a grid an operation needs.
type Grid struct {
	Path string `json:"path"`
}

// Transformation is an operation from a CRS (its geodetic CRS).
type Transformation struct {
	Accuracy   *float64  `json:"accuracy"`
	Area       string    `json:"area"`
	BBox       []float64 `json:"bbox"`
	Deprecated bool      `json:"deprecated"`
	Exports    *Exports  `json:"exports,omitempty"`
	Grids      []Grid    `json:"grids"`
	ID         Ref       `json:"id"`
	Name       string    `json:"name"`
	Reversible bool      `json:"reversible"`
	TargetCRS  Ref       `json:"target_crs"`
	Unit       string    `json:"unit"`
	Usable     bool      `json:"usable"`
}

// Result is one object found.
type Result struct {
	Accuracy              *float64          `json:"accuracy"`
	Area                  string            `json:"area"`
	BBox                  []float64         `json:"bbox"`
	DefaultTransformation *Ref              `json:"default_transformation"`
	Deprecated            bool              `json:"deprecated"`
	Exports               *Exports          `json:"exports,omitempty"`
	ID                    Ref               `json:"id"`
	Kind                  string            `json:"kind"`
	Name                  string            `json:"name"`
	Transformations       *[]Transformation `json:"transformations,omitempty"`
	Unit                  string            `json:"unit"`
}

// SearchResults is the answer of a search.
type SearchResults struct {
	Results []Result `json:"results"`
	Total   int      `json:"total"`
}

type match struct {
	i     int32
	score int8
}

// Search finds the objects matching req. Order: the best match first (a
// term equal to the code, then the name equal to the query, then every term
// in the name, then terms found in aliases or the area), then active before
// deprecated, EPSG before ESRI before IGNF, then by code. exp writes the
// exports (nil: none available, and asking for them is ErrNoPROJ).
func (ix *Index) Search(ctx context.Context, req SearchRequest, exp Exporter) (*SearchResults, error) {
	if req.Exports && exp == nil {
		return nil, ErrNoPROJ
	}
	var matches []match
	joined := strings.Join(req.Terms, " ")
	words := termWords(req.Terms)
	consider := func(i int32) {
		e := &ix.entries[i]
		if !ix.filter(e, req) {
			return
		}
		if score, ok := ix.scoreEntry(e, req.Terms, words, joined); ok {
			matches = append(matches, match{i, score})
		}
	}
	for _, i := range ix.candidates(req, words) {
		consider(i)
	}
	sortEntries(ix, matches)
	out := &SearchResults{Results: []Result{}, Total: len(matches)}
	if req.Offset >= len(matches) {
		return out, nil
	}
	matches = matches[req.Offset:]
	if len(matches) > req.Limit {
		matches = matches[:req.Limit]
	}
	// The results' default transformations, in one allocation.
	defTrans := make([]Ref, 0, len(matches))
	for _, m := range matches {
		r, err := ix.result(ctx, &ix.entries[m.i], req, exp, &defTrans)
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

// candidates lists the entries a search looks at: those of the code (or
// transformation code) asked, or holding the terms' words, or of the kind.
// filter and scoreEntry then check every condition.
func (ix *Index) candidates(req SearchRequest, words []string) []int32 {
	var base []int32
	switch {
	case req.Code != "":
		base = ix.byCode.Get(ix.text, codeKey(req.Code))
	case req.Trans != "":
		k := codeKey(req.Trans)
		base = append(slices.Clone(ix.byTrans.Get(ix.text, k)), ix.byCode.Get(ix.text, k)...)
		slices.Sort(base)
		base = slices.Compact(base)
	}
	switch {
	case len(words) > 0 && base == nil && req.Code == "" && req.Trans == "":
		return ix.withWords(words)
	case len(words) > 0:
		with := ix.withWords(words)
		var out []int32
		for _, i := range base {
			if _, ok := slices.BinarySearch(with, i); ok {
				out = append(out, i)
			}
		}
		return out
	case req.Code != "" || req.Trans != "":
		return base
	case req.Kind == "*":
		all := make([]int32, len(ix.entries))
		for i := range all {
			all[i] = int32(i)
		}
		return all
	}
	return ix.byKind[req.Kind]
}

// codeKey is the key of byCode and byTrans: the code, lower-cased, without
// its authority.
func codeKey(filter string) string {
	if _, code, ok := strings.Cut(filter, ":"); ok {
		filter = code
	}
	return strings.ToLower(filter)
}

func (ix *Index) filter(e *entry, req SearchRequest) bool {
	if kind := ix.str(e.kind); req.Kind != "*" && kind != req.Kind && !strings.HasPrefix(kind, req.Kind+"-") {
		return false
	}
	switch req.Deprecated {
	case 0:
		if e.deprecated {
			return false
		}
	case 1:
		if !e.deprecated {
			return false
		}
	}
	if req.Code != "" && !codeMatches(ix.ref(e.id), req.Code) {
		return false
	}
	if req.Trans != "" {
		if e.category == CategoryOperation {
			return codeMatches(ix.ref(e.id), req.Trans)
		}
		found := false
		for _, t := range ix.transOf(e) {
			if codeMatches(ix.ref(ix.entries[t].id), req.Trans) {
				found = true
				break
			}
		}
		return found
	}
	return true
}

func codeMatches(id Ref, filter string) bool {
	auth, code, ok := strings.Cut(filter, ":")
	if !ok {
		return strings.EqualFold(string(id.Code), filter)
	}
	return id.Authority == auth && strings.EqualFold(string(id.Code), code)
}

// termWords are the words of the terms.
func termWords(terms []string) []string {
	var ws []string
	for _, t := range terms {
		ws = append(ws, Words(t)...)
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// seenPool holds the marks of withWords, one per entry.
var seenPool = sync.Pool{New: func() any { return []uint8(nil) }}

// withWords lists the entries holding, for every word, a word it begins.
func (ix *Index) withWords(words []string) []int32 {
	if len(words) > 255 {
		return nil
	}
	seen := seenPool.Get().([]uint8)
	if len(seen) != len(ix.entries) {
		seen = make([]uint8, len(ix.entries))
	}
	defer seenPool.Put(seen)
	clear(seen)
	var out []int32
	for k, w := range words {
		for j := ix.words.Search(ix.text, w); j < ix.words.Len() && strings.HasPrefix(ix.words.Key(ix.text, j), w); j++ {
			for _, e := range ix.words.At(j) {
				if seen[e] == uint8(k) {
					seen[e] = uint8(k + 1)
					if k == len(words)-1 {
						out = append(out, e)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// scoreEntry ranks an entry holding the terms' words.
func (ix *Index) scoreEntry(e *entry, terms, words []string, joined string) (int8, bool) {
	if len(terms) == 0 {
		return 0, true
	}
	if len(terms) == 1 && terms[0] == strings.ToLower(ix.str(e.id.code)) {
		return 4, true
	}
	if len(words) == 0 {
		// Terms without letters or digits match nothing.
		return 0, false
	}
	inName := true
	nameWords := ix.nameWords[e.nameWords.off : e.nameWords.off+e.nameWords.n]
	for _, w := range words {
		if !slices.ContainsFunc(nameWords, func(n strtab.Ref) bool { return strings.HasPrefix(ix.str(n), w) }) {
			inName = false
			break
		}
	}
	switch {
	case ix.str(e.folded) == joined:
		return 3, true
	case inName:
		return 2, true
	}
	return 1, true
}

// result is the answer for an entry; its default transformation is
// appended to defTrans (whose capacity the caller has made room in, so the
// pointers into it stay valid).
func (ix *Index) result(ctx context.Context, e *entry, req SearchRequest, exp Exporter, defTrans *[]Ref) (Result, error) {
	r := Result{Accuracy: ix.accuracy(e), Area: ix.str(e.area), BBox: ix.bbox(e), Deprecated: e.deprecated,
		ID: ix.ref(e.id), Kind: ix.str(e.kind), Name: ix.str(e.name), Unit: ix.str(e.unit)}
	if e.defTrans >= 0 {
		*defTrans = append(*defTrans, ix.ref(ix.entries[e.defTrans].id))
		r.DefaultTransformation = &(*defTrans)[len(*defTrans)-1]
	}
	if req.Exports {
		x, err := ix.export(ctx, e, exp)
		if err != nil {
			return r, err
		}
		r.Exports = x
	}
	if req.Transformations {
		ts := []Transformation{}
		for _, ti := range ix.transOf(e) {
			t := &ix.entries[ti]
			if req.Deprecated == 0 && t.deprecated {
				continue
			}
			tr := Transformation{Accuracy: ix.accuracy(t), Area: ix.str(t.area), BBox: ix.bbox(t), Deprecated: t.deprecated, Grids: []Grid{},
				ID: ix.ref(t.id), Name: ix.str(t.name), Reversible: true, TargetCRS: ix.ref(t.target), Unit: ix.str(t.unit), Usable: t.usable}
			for _, g := range ix.grids[t.grids.off : t.grids.off+t.grids.n] {
				tr.Grids = append(tr.Grids, Grid{Path: ix.str(g)})
			}
			if req.Exports {
				x, err := ix.export(ctx, t, exp)
				if err != nil {
					return r, err
				}
				tr.Exports = x
			}
			ts = append(ts, tr)
		}
		r.Transformations = &ts
	}
	return r, nil
}

// accuracy is the entry's accuracy (nil when unknown), pointing into the
// index: callers must not write through it.
func (ix *Index) accuracy(e *entry) *float64 {
	if e.accuracy < 0 {
		return nil
	}
	return &ix.accuracies[e.accuracy]
}

// bbox is the entry's bounding box (nil when unknown), a slice of the
// index: callers must not write to it.
func (ix *Index) bbox(e *entry) []float64 {
	if e.bbox < 0 {
		return nil
	}
	return ix.bboxes[e.bbox][:]
}

// export asks for the exports of objects PROJ can create; others have
// empty ones.
func (ix *Index) export(ctx context.Context, e *entry, exp Exporter) (*Exports, error) {
	if e.category == CategoryNone {
		return &Exports{}, nil
	}
	id := ix.ref(e.id)
	x, err := exp.Export(ctx, id, e.category)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", id, err)
	}
	return &x, nil
}
