// Package coords is the coordinate systems service of the hosted API: a
// search over the EPSG, ESRI and IGNF registries of PROJ's database
// (proj.db, read with the pure-Go SQLite driver into an in-memory index)
// and coordinate transforms with PROJ itself (libproj through cgo, only in
// builds with the "proj" build tag; see proj.go and noproj.go).
package coords

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/tesseramaps/tessera/internal/strtab"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	_ "modernc.org/sqlite" // proj.db is a SQLite database
)

// Authorities are the registries of proj.db the index holds.
var Authorities = []string{"EPSG", "ESRI", "IGNF"}

// ErrNoDatabase tells that no proj.db was found.
var ErrNoDatabase = errors.New("no proj.db found (install the Debian package proj-data, or set PROJ_DATA)")

// FindDatabase returns the path of proj.db: in $PROJ_DATA, $PROJ_LIB or
// /usr/share/proj, the first that has one.
func FindDatabase() (string, error) {
	var dirs []string
	for _, env := range []string{"PROJ_DATA", "PROJ_LIB"} {
		if v := os.Getenv(env); v != "" {
			dirs = append(dirs, filepath.SplitList(v)...)
		}
	}
	dirs = append(dirs, "/usr/share/proj")
	for _, d := range dirs {
		p := filepath.Join(d, "proj.db")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", ErrNoDatabase
}

// Ref names an object of the registry.
type Ref struct {
	Authority string `json:"authority"`
	Code      Code   `json:"code"`
}

// String is AUTHORITY:CODE.
func (r Ref) String() string { return r.Authority + ":" + string(r.Code) }

// Code is a registry code: written as a JSON integer when it is one (EPSG
// and ESRI codes), as a string otherwise (IGNF codes such as "LAMB93").
type Code string

// MarshalJSON writes the code as an integer when it is one.
func (c Code) MarshalJSON() ([]byte, error) {
	if isInteger(string(c)) {
		return []byte(c), nil
	}
	return []byte(strconv.Quote(string(c))), nil
}

func isInteger(s string) bool {
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Category is what PROJ needs to create an object from the database.
type Category uint8

// The categories of objects PROJ creates from the database; CategoryNone
// objects (units, axes, areas, methods, coordinate systems) have no export.
const (
	CategoryNone Category = iota
	CategoryCRS
	CategoryOperation
	CategoryEllipsoid
	CategoryPrimeMeridian
	CategoryDatum
	CategoryEnsemble
)

// entry is one object of the registry, its strings in the index's text
// (see strtab: the index holds no pointers for the collector to scan).
type entry struct {
	id   textRef
	name strtab.Ref
	kind strtab.Ref
	area strtab.Ref
	unit strtab.Ref
	// base is a CRS's geodetic CRS (itself for a geodetic CRS): the source
	// of its transformations.
	base textRef
	// source and target are an operation's CRSs.
	source, target textRef
	// folded is the folded name; nameWords its words (into
	// Index.nameWords).
	folded    strtab.Ref
	nameWords span
	// grids are the PROJ file names of an operation's grids (into
	// Index.grids).
	grids span
	// trans are the operations whose source is base (into Index.trans,
	// which holds indexes into Index.entries).
	trans span
	// bbox is an index into Index.bboxes, accuracy into Index.accuracies,
	// defTrans (a CRS's default transformation to WGS 84) into
	// Index.entries; -1 for none.
	bbox, accuracy, defTrans int32
	codeNum                  int64
	category                 Category
	deprecated               bool
	// usable tells an operation's grids are all on disk.
	usable   bool
	authRank int8
}

// span is a run of one of the index's shared slices: offset and length.
type span struct{ off, n uint32 }

// textRef is a Ref in the index's text.
type textRef struct{ auth, code strtab.Ref }

// Index is the searchable registry, read once from proj.db.
type Index struct {
	// text holds every string of the entries and lists.
	text    string
	entries []entry
	// byKind lists the entries of each kind and of each kind group ("CRS"
	// holds every "CRS-..."), in index order.
	byKind map[string][]int32
	// byCode lists the entries of each code (lower-cased, any authority);
	// byTrans the CRSs whose transformations include an operation of the
	// code.
	byCode, byTrans strtab.Lists
	// words lists, for each distinct word searched by plain terms (sorted),
	// the entries holding it.
	words strtab.Lists
	// The entries' shared slices (see entry).
	nameWords  []strtab.Ref
	grids      []strtab.Ref
	trans      []int32
	bboxes     [][4]float64
	accuracies []float64
}

// strtab.Ref is the string s of the index's text.
func (ix *Index) str(s strtab.Ref) string { return s.In(ix.text) }

// ref is the Ref r of the index's text.
func (ix *Index) ref(r textRef) Ref { return Ref{ix.str(r.auth), Code(ix.str(r.code))} }

// Len is the number of objects indexed.
func (ix *Index) Len() int { return len(ix.entries) }

// Load reads proj.db at path into an index.
func Load(ctx context.Context, path string) (*Index, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	l := loader{ctx: ctx, db: db, ix: &Index{}, text: strtab.NewBuilder(), byID: map[string]int32{},
		gridDir: filepath.Dir(path), gridFile: map[string]string{}, gridOnDisk: map[string]bool{}}
	if err := l.load(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return l.ix, nil
}

type loader struct {
	ctx  context.Context
	db   *sql.DB
	ix   *Index
	text *strtab.Builder
	// units: unit name by AUTH:CODE; csUnit: a coordinate system's first
	// axis unit; extents by AUTH:CODE; usages: table/AUTH:CODE -> extent.
	units   map[string]string
	csUnit  map[string]string
	csType  map[string]string
	extents map[string]extent
	usages  map[string]string
	aliases map[string][]string
	// postings lists the entries of each word of the names, codes,
	// aliases and areas.
	postings map[string][]int32
	// byID is the entry of each CRS, by AUTH:CODE.
	byID map[string]int32
	// gridDir is where grids are looked for (usable operations);
	// gridFile is the PROJ file name of each grid named in proj.db;
	// gridOnDisk tells the ones present in gridDir.
	gridDir    string
	gridFile   map[string]string
	gridOnDisk map[string]bool
}

type extent struct {
	desc string
	bbox int32 // into Index.bboxes, -1 for none
}

// object is an entry as read from proj.db, before add packs it.
type object struct {
	id         Ref
	name       string
	kind       string
	table      string
	category   Category
	deprecated bool
	unit       string
	accuracy   sql.NullFloat64
	base       Ref
	source     Ref
	target     Ref
	grids      []string
}

func key(table, auth, code string) string { return table + "/" + auth + ":" + code }

// authFilter restricts a query to the indexed authorities.
const authFilter = "auth_name IN ('EPSG','ESRI','IGNF')"

func (l *loader) rows(q string, scan func(r *sql.Rows) error) error {
	rows, err := l.db.QueryContext(l.ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (l *loader) load() error {
	l.units, l.csUnit, l.csType = map[string]string{}, map[string]string{}, map[string]string{}
	l.extents, l.usages, l.aliases = map[string]extent{}, map[string]string{}, map[string][]string{}
	l.postings = map[string][]int32{}
	steps := []func() error{l.loadLookups, l.loadCRS, l.loadOperations, l.loadOthers}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	l.link()
	l.ix.words = strtab.NewLists(l.text, l.postings)
	l.ix.text = l.text.Text()
	return nil
}

func (l *loader) loadLookups() error {
	if err := l.rows("SELECT auth_name, code, name FROM unit_of_measure", func(r *sql.Rows) error {
		var a, c, n string
		if err := r.Scan(&a, &c, &n); err != nil {
			return err
		}
		// EPSG's "degree (supplier to define representation)" is the degree
		// (as PROJ writes it).
		l.units[a+":"+c] = strings.TrimSuffix(n, " (supplier to define representation)")
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT cs.auth_name, cs.code, cs.type, COALESCE(a.uom_auth_name,''), COALESCE(a.uom_code,'') FROM coordinate_system cs LEFT JOIN axis a ON a.coordinate_system_auth_name = cs.auth_name AND a.coordinate_system_code = cs.code AND a.coordinate_system_order = 1", func(r *sql.Rows) error {
		var a, c, t, ua, uc string
		if err := r.Scan(&a, &c, &t, &ua, &uc); err != nil {
			return err
		}
		l.csType[a+":"+c] = t
		if ua != "" {
			l.csUnit[a+":"+c] = l.units[ua+":"+uc]
		}
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT auth_name, code, description, south_lat, north_lat, west_lon, east_lon FROM extent", func(r *sql.Rows) error {
		var a, c, d string
		var s, n, w, e sql.NullFloat64
		if err := r.Scan(&a, &c, &d, &s, &n, &w, &e); err != nil {
			return err
		}
		x := extent{desc: d, bbox: -1}
		if s.Valid && n.Valid && w.Valid && e.Valid {
			x.bbox = int32(len(l.ix.bboxes))
			l.ix.bboxes = append(l.ix.bboxes, [4]float64{w.Float64, s.Float64, e.Float64, n.Float64})
		}
		l.extents[a+":"+c] = x
		return nil
	}); err != nil {
		return err
	}
	// The first usage of an object (by the usage's code) gives its area.
	if err := l.rows("SELECT object_table_name, object_auth_name, object_code, extent_auth_name, extent_code FROM usage ORDER BY auth_name, CAST(code AS INTEGER), code", func(r *sql.Rows) error {
		var t, a, c, ea, ec string
		if err := r.Scan(&t, &a, &c, &ea, &ec); err != nil {
			return err
		}
		k := key(t, a, c)
		if _, ok := l.usages[k]; !ok {
			l.usages[k] = ea + ":" + ec
		}
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT table_name, auth_name, code, alt_name FROM alias_name", func(r *sql.Rows) error {
		var t, a, c, n string
		if err := r.Scan(&t, &a, &c, &n); err != nil {
			return err
		}
		k := key(t, a, c)
		l.aliases[k] = append(l.aliases[k], n)
		return nil
	}); err != nil {
		return err
	}
	// Grids present on disk, under their PROJ names.
	return l.rows("SELECT original_grid_name, proj_grid_name, COALESCE(old_proj_grid_name,'') FROM grid_alternatives", func(r *sql.Rows) error {
		var o, p, old string
		if err := r.Scan(&o, &p, &old); err != nil {
			return err
		}
		l.gridFile[o] = p
		for _, n := range []string{p, old} {
			if n == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(l.gridDir, n)); err == nil {
				l.gridOnDisk[o] = true
			}
		}
		return nil
	})
}

// add packs an object into an entry and appends it, filling what the
// lookups give.
func (l *loader) add(o object) int32 {
	t := l.text
	k := key(o.table, o.id.Authority, string(o.id.Code))
	area, bbox := "", int32(-1)
	if ex, ok := l.extents[l.usages[k]]; ok {
		area, bbox = ex.desc, ex.bbox
	}
	parts := append([]string{o.name, string(o.id.Code)}, l.aliases[k]...)
	parts = append(parts, area)
	if o.kind == "AREA" {
		// Areas are their own area (their words are those of their usage's).
		if ex, ok := l.extents[o.id.String()]; ok {
			area, bbox = ex.desc, ex.bbox
		}
	}
	if o.kind == "" {
		o.kind = "CS-CARTESCS"
	}
	folded := Fold(o.name)
	e := entry{id: l.ref(o.id), name: t.Add(o.name), kind: t.Add(o.kind), area: t.Add(area), unit: t.Add(o.unit),
		base: l.ref(o.base), source: l.ref(o.source), target: l.ref(o.target), folded: t.Add(folded),
		bbox: bbox, accuracy: -1, defTrans: -1, category: o.category, deprecated: o.deprecated}
	if o.accuracy.Valid {
		e.accuracy = int32(len(l.ix.accuracies))
		l.ix.accuracies = append(l.ix.accuracies, o.accuracy.Float64)
	}
	e.nameWords.off = uint32(len(l.ix.nameWords))
	for _, w := range Words(folded) {
		l.ix.nameWords = append(l.ix.nameWords, t.Add(w))
	}
	e.nameWords.n = uint32(len(l.ix.nameWords)) - e.nameWords.off
	e.grids.off = uint32(len(l.ix.grids))
	for _, g := range o.grids {
		l.ix.grids = append(l.ix.grids, t.Add(l.gridPath(g)))
	}
	e.grids.n = uint32(len(o.grids))
	if o.category == CategoryOperation {
		e.usable = l.gridsPresent(o.grids)
	}
	e.codeNum, _ = strconv.ParseInt(string(o.id.Code), 10, 64)
	switch o.id.Authority {
	case "EPSG":
		e.authRank = 0
	case "ESRI":
		e.authRank = 1
	default:
		e.authRank = 2
	}
	i := int32(len(l.ix.entries))
	l.ix.entries = append(l.ix.entries, e)
	for _, w := range uniqueWords(Fold(strings.Join(parts, " "))) {
		l.postings[w] = append(l.postings[w], i)
	}
	if o.category == CategoryCRS {
		l.byID[o.id.String()] = i
	}
	return i
}

// ref stores r's strings.
func (l *loader) ref(r Ref) textRef {
	return textRef{l.text.Add(r.Authority), l.text.Add(string(r.Code))}
}

func (l *loader) loadCRS() error {
	geodKind := map[string]string{"geographic 2D": "CRS-GEOGCRS", "geographic 3D": "CRS-GEOG3DCRS", "geocentric": "CRS-GCENCRS", "other": "CRS-GEOGCRS"}
	if err := l.rows("SELECT auth_name, code, name, type, COALESCE(coordinate_system_auth_name,''), COALESCE(coordinate_system_code,''), deprecated FROM geodetic_crs WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, n, t, csa, csc string
		var dep bool
		if err := r.Scan(&a, &c, &n, &t, &csa, &csc, &dep); err != nil {
			return err
		}
		id := Ref{a, Code(c)}
		l.add(object{id: id, name: n, kind: geodKind[t], table: "geodetic_crs", category: CategoryCRS, deprecated: dep, unit: l.csUnit[csa+":"+csc], base: id})
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT auth_name, code, name, COALESCE(coordinate_system_auth_name,''), COALESCE(coordinate_system_code,''), COALESCE(geodetic_crs_auth_name,''), COALESCE(geodetic_crs_code,''), deprecated FROM projected_crs WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, n, csa, csc, ga, gc string
		var dep bool
		if err := r.Scan(&a, &c, &n, &csa, &csc, &ga, &gc, &dep); err != nil {
			return err
		}
		l.add(object{id: Ref{a, Code(c)}, name: n, kind: "CRS-PROJCRS", table: "projected_crs", category: CategoryCRS, deprecated: dep, unit: l.csUnit[csa+":"+csc], base: Ref{ga, Code(gc)}})
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT auth_name, code, name, coordinate_system_auth_name, coordinate_system_code, deprecated FROM vertical_crs WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, n, csa, csc string
		var dep bool
		if err := r.Scan(&a, &c, &n, &csa, &csc, &dep); err != nil {
			return err
		}
		id := Ref{a, Code(c)}
		l.add(object{id: id, name: n, kind: "CRS-VERTCRS", table: "vertical_crs", category: CategoryCRS, deprecated: dep, unit: l.csUnit[csa+":"+csc], base: id})
		return nil
	}); err != nil {
		return err
	}
	return l.rows("SELECT auth_name, code, name, horiz_crs_auth_name, horiz_crs_code, deprecated FROM compound_crs WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, n, ha, hc string
		var dep bool
		if err := r.Scan(&a, &c, &n, &ha, &hc, &dep); err != nil {
			return err
		}
		// The unit and base are the horizontal CRS's, filled in link.
		l.add(object{id: Ref{a, Code(c)}, name: n, kind: "CRS-COMPOUNDCRS", table: "compound_crs", category: CategoryCRS, deprecated: dep, base: Ref{ha, Code(hc)}})
		return nil
	})
}

func (l *loader) loadOperations() error {
	grids := map[string][]string{}
	if err := l.rows("SELECT auth_name, code, grid_name, COALESCE(grid2_name,'') FROM grid_transformation WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, g1, g2 string
		if err := r.Scan(&a, &c, &g1, &g2); err != nil {
			return err
		}
		k := a + ":" + c
		grids[k] = append(grids[k], g1)
		if g2 != "" {
			grids[k] = append(grids[k], g2)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := l.rows("SELECT table_name, auth_name, code, name, COALESCE(method_name,''), source_crs_auth_name, source_crs_code, target_crs_auth_name, target_crs_code, accuracy, deprecated FROM coordinate_operation_view WHERE "+authFilter, func(r *sql.Rows) error {
		var t, a, c, n, m, sa, sc, ta, tc string
		var acc sql.NullFloat64
		var dep bool
		if err := r.Scan(&t, &a, &c, &n, &m, &sa, &sc, &ta, &tc, &acc, &dep); err != nil {
			return err
		}
		e := object{id: Ref{a, Code(c)}, name: n, kind: "COORDOP-COPTRAN", table: t, category: CategoryOperation, deprecated: dep,
			source: Ref{sa, Code(sc)}, target: Ref{ta, Code(tc)}, grids: grids[a+":"+c], unit: "metre"}
		if t == "concatenated_operation" {
			e.kind = "COORDOP-COPCONO"
		} else if strings.HasPrefix(m, "Point motion") {
			e.kind = "COORDOP-POIMOTO"
		}
		e.accuracy = acc
		l.add(e)
		return nil
	}); err != nil {
		return err
	}
	return l.rows("SELECT auth_name, code, name, deprecated FROM conversion_table WHERE "+authFilter, func(r *sql.Rows) error {
		var a, c, n string
		var dep bool
		if err := r.Scan(&a, &c, &n, &dep); err != nil {
			return err
		}
		l.add(object{id: Ref{a, Code(c)}, name: n, kind: "COORDOP-COPCON", table: "conversion", category: CategoryOperation, deprecated: dep})
		return nil
	})
}

func (l *loader) loadOthers() error {
	simple := func(q, kind, table string, cat Category, kindOf func(extra string) string) error {
		return l.rows(q, func(r *sql.Rows) error {
			var a, c, n, extra string
			var dep bool
			if err := r.Scan(&a, &c, &n, &extra, &dep); err != nil {
				return err
			}
			k, ct := kind, cat
			if kindOf != nil {
				k = kindOf(extra)
				if k == "DATUM-ENSEMDAT" {
					ct = CategoryEnsemble
				}
			}
			e := object{id: Ref{a, Code(c)}, name: n, kind: k, table: table, category: ct, deprecated: dep}
			if strings.HasPrefix(k, "UNIT") {
				e.unit = n
			}
			l.add(e)
			return nil
		})
	}
	geodDatum := func(x string) string {
		switch x {
		case "ensemble":
			return "DATUM-ENSEMDAT"
		case "dynamic":
			return "DATUM-DYNGEODDA"
		}
		return "DATUM-GEODDAT"
	}
	vertDatum := func(x string) string {
		if x == "ensemble" {
			return "DATUM-ENSEMDAT"
		}
		return "DATUM-VERTDAT"
	}
	unitKind := map[string]string{"angle": "UNIT-ANGUNIT", "scale": "UNIT-SCALEUNIT", "length": "UNIT-LENUNIT", "time": "UNIT-TIMEUNIT"}
	csKind := map[string]string{"vertical": "CS-VERTCS", "spherical": "CS-SPHERCS", "Cartesian": "CS-CARTESCS", "ellipsoidal": "CS-ELLIPCS", "ordinal": "CS-ORDINAL", "affine": "CS-AFFINE"}
	datumType := "CASE WHEN ensemble_accuracy IS NOT NULL THEN 'ensemble' WHEN frame_reference_epoch IS NOT NULL THEN 'dynamic' ELSE '' END"
	steps := []error{
		simple("SELECT auth_name, code, name, "+datumType+", deprecated FROM geodetic_datum WHERE "+authFilter, "", "geodetic_datum", CategoryDatum, geodDatum),
		simple("SELECT auth_name, code, name, "+datumType+", deprecated FROM vertical_datum WHERE "+authFilter, "", "vertical_datum", CategoryDatum, vertDatum),
		simple("SELECT auth_name, code, name, '', deprecated FROM ellipsoid WHERE "+authFilter, "ELLIPSOID", "ellipsoid", CategoryEllipsoid, nil),
		simple("SELECT auth_name, code, name, '', deprecated FROM prime_meridian WHERE "+authFilter, "PRIMEM", "prime_meridian", CategoryPrimeMeridian, nil),
		simple("SELECT auth_name, code, name, '', 0 FROM coordinate_operation_method WHERE "+authFilter, "METHOD", "method", CategoryNone, nil),
		simple("SELECT auth_name, code, type, type, 0 FROM coordinate_system WHERE "+authFilter, "", "coordinate_system", CategoryNone, func(x string) string { return csKind[x] }),
		simple("SELECT auth_name, code, name, '', 0 FROM axis WHERE "+authFilter, "AXIS", "axis", CategoryNone, nil),
		simple("SELECT auth_name, code, name, '', deprecated FROM extent WHERE "+authFilter, "AREA", "extent", CategoryNone, nil),
		simple("SELECT auth_name, code, name, type, deprecated FROM unit_of_measure WHERE "+authFilter, "", "unit_of_measure", CategoryNone, func(x string) string { return unitKind[x] }),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	return nil
}

// link fills what needs every object loaded: the transformations of each
// CRS, its default transformation, the unit of compound CRSs and the
// lookup lists.
func (l *loader) link() {
	ix := l.ix
	wgs84 := l.ref(wgs84)
	text := l.text.Text()
	bySource := map[textRef][]int32{}
	byCode, byTrans := map[string][]int32{}, map[string][]int32{}
	ix.byKind = map[string][]int32{}
	for i := range ix.entries {
		e := &ix.entries[i]
		c := strings.ToLower(e.id.code.In(text))
		byCode[c] = append(byCode[c], int32(i))
		kind := e.kind.In(text)
		ix.byKind[kind] = append(ix.byKind[kind], int32(i))
		if group, _, ok := strings.Cut(kind, "-"); ok {
			ix.byKind[group] = append(ix.byKind[group], int32(i))
		}
		if e.category == CategoryOperation && e.source.auth.Len > 0 {
			bySource[e.source] = append(bySource[e.source], int32(i))
		}
	}
	// CRSs of one geodetic CRS share their list of transformations.
	transOf := map[textRef]span{}
	for i := range ix.entries {
		e := &ix.entries[i]
		if e.category != CategoryCRS {
			continue
		}
		if e.kind.In(text) == "CRS-COMPOUNDCRS" {
			if h, ok := l.byID[e.base.auth.In(text)+":"+e.base.code.In(text)]; ok {
				he := &ix.entries[h]
				e.unit = he.unit
				e.base = he.base
			}
		}
		sp, ok := transOf[e.base]
		if !ok {
			ts := bySource[e.base]
			sp = span{uint32(len(ix.trans)), uint32(len(ts))}
			ix.trans = append(ix.trans, ts...)
			transOf[e.base] = sp
		}
		e.trans = sp
		for _, t := range ix.transOf(e) {
			c := strings.ToLower(ix.entries[t].id.code.In(text))
			byTrans[c] = append(byTrans[c], int32(i))
		}
		e.defTrans = ix.defaultTransformation(e, wgs84)
		if e.defTrans >= 0 {
			e.accuracy = ix.entries[e.defTrans].accuracy
		} else {
			e.accuracy = -1
		}
	}
	ix.byCode = strtab.NewLists(l.text, byCode)
	ix.byTrans = strtab.NewLists(l.text, byTrans)
}

// wgs84 is the target of default transformations.
var wgs84 = Ref{"EPSG", "4326"}

// defaultTransformation is the CRS's transformation to WGS 84: of the
// operations from its geodetic CRS to EPSG:4326 that are not deprecated, the
// one usable here (grids on disk) with the best (smallest) accuracy, then
// the lowest code. -1 for WGS 84 itself and CRSs without one.
func (ix *Index) defaultTransformation(e *entry, wgs84 textRef) int32 {
	best := int32(-1)
	better := func(a, b *entry) bool {
		if ua, ub := a.usable, b.usable; ua != ub {
			return ua
		}
		if (a.accuracy >= 0) != (b.accuracy >= 0) {
			return a.accuracy >= 0
		}
		if a.accuracy >= 0 && ix.accuracies[a.accuracy] != ix.accuracies[b.accuracy] {
			return ix.accuracies[a.accuracy] < ix.accuracies[b.accuracy]
		}
		return a.codeNum < b.codeNum
	}
	for _, t := range ix.transOf(e) {
		te := &ix.entries[t]
		if te.deprecated || te.target != wgs84 {
			continue
		}
		if best < 0 || better(te, &ix.entries[best]) {
			best = t
		}
	}
	return best
}

// transOf is the operations whose source is the entry's base.
func (ix *Index) transOf(e *entry) []int32 { return ix.trans[e.trans.off : e.trans.off+e.trans.n] }

// gridsPresent reports whether an operation's grids are all on disk.
func (l *loader) gridsPresent(grids []string) bool {
	for _, g := range grids {
		if !l.gridPresent(g) {
			return false
		}
	}
	return true
}

func (l *loader) gridPresent(name string) bool {
	if l.gridOnDisk[name] {
		return true
	}
	_, err := os.Stat(filepath.Join(l.gridDir, filepath.Base(name)))
	return err == nil
}

// gridPath is the file name PROJ looks for a grid under.
func (l *loader) gridPath(name string) string {
	if f, ok := l.gridFile[name]; ok {
		return f
	}
	return name
}

// Words splits folded text into words: runs of letters and digits.
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func uniqueWords(s string) []string {
	ws := Words(s)
	sort.Strings(ws)
	return slices.Compact(ws)
}

// Fold lower-cases s and strips diacritics, for matching.
func Fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// sortEntries orders matches: see Search.
func sortEntries(ix *Index, m []match) {
	sort.SliceStable(m, func(i, j int) bool {
		a, b := &ix.entries[m[i].i], &ix.entries[m[j].i]
		if m[i].score != m[j].score {
			return m[i].score > m[j].score
		}
		if a.deprecated != b.deprecated {
			return !a.deprecated
		}
		if a.authRank != b.authRank {
			return a.authRank < b.authRank
		}
		if a.codeNum != b.codeNum {
			return a.codeNum < b.codeNum
		}
		return ix.str(a.id.code) < ix.str(b.id.code)
	})
}
