//go:build proj && cgo

package coords

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <proj.h>
#include <proj_experimental.h>

// libproj is opened when the first engine is made (tp_load), not linked:
// it and the forty libraries it needs (curl, TLS, TIFF, SQLite...) would
// otherwise be loaded by every run of the binary, a `tessera render` or
// `tessera version` included (about 8 ms of each start here), and the
// binary would not start at all where libproj is missing. Each function
// used is reached through a pointer bound by dlsym, typed from proj.h.
#define TP_SYMBOLS(X) \
	X(proj_info) X(proj_context_create) X(proj_log_level) X(proj_context_destroy) \
	X(proj_destroy) X(proj_context_errno) X(proj_context_errno_string) \
	X(proj_create_from_database) X(proj_as_wkt) X(proj_crs_create_bound_crs_to_WGS84) \
	X(proj_as_proj_string) X(proj_errno_reset) X(proj_trans_generic) X(proj_pj_info) \
	X(proj_trans_get_last_used_operation) X(proj_get_name) X(proj_get_id_auth_name) \
	X(proj_get_id_code) X(proj_normalize_for_visualization) \
	X(proj_create_crs_to_crs_from_pj) X(proj_create) X(proj_get_source_crs) \
	X(proj_get_target_crs)

#define TP_POINTER(name) static __typeof__(name) *p_##name;
TP_SYMBOLS(TP_POINTER)

// tp_load opens libproj and binds its functions: NULL, or what failed.
// Called once (the Go side holds a sync.Once).
static const char *tp_load(void) {
	// The library's soname changes with its ABI (libproj.so.25 is PROJ
	// 9.x); the unversioned name exists where libproj-dev is installed.
	static const char *names[] = {
		"libproj.so.25", "libproj.so.26", "libproj.so.27", "libproj.so.28",
		"libproj.so.29", "libproj.so.30", "libproj.so", NULL,
	};
	void *h = NULL;
	for (int i = 0; names[i] != NULL && h == NULL; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	}
	if (h == NULL) {
		return "libproj (libproj25 or later) cannot be opened";
	}
#define TP_BIND(name) \
	if ((p_##name = (__typeof__(p_##name))dlsym(h, #name)) == NULL) { \
		return "libproj lacks " #name; \
	}
	TP_SYMBOLS(TP_BIND)
	return NULL;
}

// The functions Go calls (cgo cannot call through a pointer).
static PJ_INFO tp_info(void) { return p_proj_info(); }
static PJ_CONTEXT *tp_context_create(void) { return p_proj_context_create(); }
static void tp_log_none(PJ_CONTEXT *c) { p_proj_log_level(c, PJ_LOG_NONE); }
static void tp_context_destroy(PJ_CONTEXT *c) { p_proj_context_destroy(c); }
static void tp_destroy(PJ *p) { p_proj_destroy(p); }
static int tp_context_errno(PJ_CONTEXT *c) { return p_proj_context_errno(c); }
static const char *tp_context_errno_string(PJ_CONTEXT *c, int err) { return p_proj_context_errno_string(c, err); }
static PJ *tp_create_from_database(PJ_CONTEXT *c, const char *auth, const char *code, PJ_CATEGORY cat) {
	return p_proj_create_from_database(c, auth, code, cat, 0, NULL);
}
static PJ *tp_bound_to_wgs84(PJ_CONTEXT *c, const PJ *crs) { return p_proj_crs_create_bound_crs_to_WGS84(c, crs, NULL); }
static const char *tp_as_proj_string(PJ_CONTEXT *c, const PJ *p, PJ_PROJ_STRING_TYPE t) { return p_proj_as_proj_string(c, p, t, NULL); }
static void tp_errno_reset(const PJ *p) { p_proj_errno_reset(p); }
static PJ_PROJ_INFO tp_pj_info(PJ *p) { return p_proj_pj_info(p); }
static PJ *tp_last_used_operation(PJ *p) { return p_proj_trans_get_last_used_operation(p); }
static const char *tp_get_name(const PJ *p) { return p_proj_get_name(p); }
static const char *tp_get_id_auth_name(const PJ *p, int i) { return p_proj_get_id_auth_name(p, i); }
static const char *tp_get_id_code(const PJ *p, int i) { return p_proj_get_id_code(p, i); }
static PJ *tp_normalize_for_visualization(PJ_CONTEXT *c, const PJ *p) { return p_proj_normalize_for_visualization(c, p); }
static PJ *tp_crs_to_crs(PJ_CONTEXT *c, const PJ *from, const PJ *to) { return p_proj_create_crs_to_crs_from_pj(c, from, to, NULL, NULL); }
static PJ *tp_create(PJ_CONTEXT *c, const char *def) { return p_proj_create(c, def); }
static PJ *tp_get_source_crs(PJ_CONTEXT *c, const PJ *p) { return p_proj_get_source_crs(c, p); }
static PJ *tp_get_target_crs(PJ_CONTEXT *c, const PJ *p) { return p_proj_get_target_crs(c, p); }

static PJ_CATEGORY cat_of(int c) {
	switch (c) {
	case 1: return PJ_CATEGORY_CRS;
	case 2: return PJ_CATEGORY_COORDINATE_OPERATION;
	case 3: return PJ_CATEGORY_ELLIPSOID;
	case 4: return PJ_CATEGORY_PRIME_MERIDIAN;
	case 5: return PJ_CATEGORY_DATUM;
	default: return PJ_CATEGORY_DATUM_ENSEMBLE;
	}
}

static const char *wkt2(PJ_CONTEXT *ctx, PJ *p) { return p_proj_as_wkt(ctx, p, PJ_WKT2_2019, NULL); }

static size_t trans_xyz(PJ *p, int inverse, double *x, double *y, double *z, size_t n) {
	return p_proj_trans_generic(p, inverse ? PJ_INV : PJ_FWD, x, sizeof(double), n, y, sizeof(double), n, z, sizeof(double), n, NULL, 0, 0);
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Available tells that this build transforms and exports with libproj
// (opened when the first engine is made: see loadPROJ).
const Available = true

var (
	projOnce sync.Once
	projErr  error
)

// loadPROJ opens libproj once; the error, if it cannot be, is a
// missingPROJ.
func loadPROJ() error {
	projOnce.Do(func() {
		if msg := C.tp_load(); msg != nil {
			projErr = missingPROJ(C.GoString(msg))
		}
	})
	return projErr
}

// missingPROJ is ErrNoPROJ in a build with PROJ run where libproj cannot
// be opened: what failed.
type missingPROJ string

func (m missingPROJ) Error() string {
	return "this server cannot open PROJ: " + string(m) + " (install libproj, on Debian the package libproj25)"
}

// Is makes errors.Is(err, ErrNoPROJ) hold.
func (missingPROJ) Is(target error) bool { return target == ErrNoPROJ }

// PROJVersion is the version of libproj ("" when it cannot be opened).
func PROJVersion() string {
	if loadPROJ() != nil {
		return ""
	}
	info := C.tp_info()
	return C.GoString(info.release)
}

// Engine runs PROJ: a pool of PROJ contexts (PROJ objects are not safe for
// concurrent use: each context and the objects made on it are used by one
// goroutine at a time), each keeping the transformers it made.
type Engine struct {
	pool    chan *projCtx
	err     error    // libproj could not be opened: every call fails with it
	exports sync.Map // AUTH:CODE/category -> Exports
}

type projCtx struct {
	ctx *C.PJ_CONTEXT
	// transformers by request key.
	transformers map[string]*transformer
}

// transformer is a ready chain of operations.
type transformer struct {
	steps []step
	// strategy is the transformer_selection_strategy of its results.
	strategy string
	// auto tells a transformer PROJ chose (the operation used is reported).
	auto bool
	// used names the operations PROJ chose, by the description proj_pj_info
	// gives of the last one used (about 1 us; proj_trans_get_last_used_operation
	// clones the operation, 20-70 us, so it is called once per operation).
	used map[string]string
}

type step struct {
	pj      *C.PJ
	inverse bool
}

// maxTransformers bounds each context's cache of transformers.
const maxTransformers = 256

// NewEngine makes an engine of n PROJ contexts (0: twice GOMAXPROCS, at
// least 4).
func NewEngine(n int) *Engine {
	if n <= 0 {
		n = max(2*runtime.GOMAXPROCS(0), 4)
	}
	if err := loadPROJ(); err != nil {
		return &Engine{err: err}
	}
	e := &Engine{pool: make(chan *projCtx, n)}
	for range n {
		c := C.tp_context_create()
		C.tp_log_none(c)
		e.pool <- &projCtx{ctx: c, transformers: map[string]*transformer{}}
	}
	return e
}

// Close releases the contexts and their objects.
func (e *Engine) Close() {
	if e.err != nil {
		return
	}
	for range cap(e.pool) {
		c := <-e.pool
		c.reset()
		C.tp_context_destroy(c.ctx)
	}
}

func (e *Engine) get(ctx context.Context) (*projCtx, error) {
	if e.err != nil {
		return nil, e.err
	}
	select {
	case c := <-e.pool:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *projCtx) reset() {
	for k, t := range c.transformers {
		for _, s := range t.steps {
			C.tp_destroy(s.pj)
		}
		delete(c.transformers, k)
	}
}

func (c *projCtx) lastError() string {
	errno := C.tp_context_errno(c.ctx)
	if errno == 0 {
		return "unknown error"
	}
	return C.GoString(C.tp_context_errno_string(c.ctx, errno))
}

// Export writes an object of the database as a PROJ string (PROJ.4 form
// for CRSs, a pipeline for operations; empty for objects PROJ cannot write
// so) and WKT2 (2019); both are empty for an object PROJ cannot create.
func (e *Engine) Export(ctx context.Context, id Ref, cat Category) (Exports, error) {
	k := fmt.Sprintf("%s/%d", id, cat)
	if v, ok := e.exports.Load(k); ok {
		return v.(Exports), nil
	}
	c, err := e.get(ctx)
	if err != nil {
		return Exports{}, err
	}
	defer func() { e.pool <- c }()
	auth, code := C.CString(id.Authority), C.CString(string(id.Code))
	defer C.free(unsafe.Pointer(auth))
	defer C.free(unsafe.Pointer(code))
	pj := C.tp_create_from_database(c.ctx, auth, code, C.cat_of(C.int(cat)))
	if pj == nil {
		// A few objects of the registry PROJ cannot instantiate (9 in
		// proj.db 9.1.1, operations over missing grids or unsupported
		// methods): they have empty exports.
		C.tp_context_errno(c.ctx)
		e.exports.Store(k, Exports{})
		return Exports{}, nil
	}
	defer C.tp_destroy(pj)
	var x Exports
	if w := C.wkt2(c.ctx, pj); w != nil {
		x.WKT = C.GoString(w)
	}
	kind := C.PJ_PROJ_4
	if cat == CategoryOperation {
		kind = C.PJ_PROJ_5
	}
	if cat == CategoryCRS || cat == CategoryOperation {
		src := pj
		// A CRS's PROJ string carries its transformation to WGS 84
		// (+towgs84) when there is one, as projinfo writes it.
		if cat == CategoryCRS {
			if b := C.tp_bound_to_wgs84(c.ctx, pj); b != nil {
				defer C.tp_destroy(b)
				src = b
			}
		}
		if p := C.tp_as_proj_string(c.ctx, src, C.PJ_PROJ_STRING_TYPE(kind)); p != nil {
			x.Proj4 = C.GoString(p)
		}
	}
	// A failed export leaves an error on the context: clear it.
	C.tp_context_errno(c.ctx)
	e.exports.Store(k, x)
	return x, nil
}

// Transform transforms the points of req in place. The axis order is the
// traditional GIS one (longitude or easting first) on both sides.
func (e *Engine) Transform(ctx context.Context, req TransformRequest) (*TransformResult, error) {
	c, err := e.get(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { e.pool <- c }()
	t, err := c.transformer(req)
	if err != nil {
		return nil, err
	}
	n := len(req.Points)
	buf := make([]C.double, 3*n)
	x, y, z := buf[:n:n], buf[n:2*n:2*n], buf[2*n:]
	for i, p := range req.Points {
		x[i], y[i], z[i] = C.double(p.X), C.double(p.Y), C.double(p.Z)
	}
	strategy := t.strategy
	for _, s := range t.steps {
		inv := C.int(0)
		if s.inverse {
			inv = 1
		}
		C.tp_errno_reset(s.pj)
		C.trans_xyz(s.pj, inv, &x[0], &y[0], &z[0], C.size_t(n))
		if t.auto {
			strategy = t.lastUsed(s.pj)
		}
	}
	out := &TransformResult{Results: make([]Point, n), Strategy: strategy}
	for i := range out.Results {
		p := Point{X: float64(x[i]), Y: float64(y[i]), Z: float64(z[i])}
		if !finite(p.X) || !finite(p.Y) || !finite(p.Z) {
			return nil, fmt.Errorf("%w: point %d (%g, %g) cannot be transformed from %s to %s (outside the area the operation is defined for?)",
				ErrNotTransformable, i+1, req.Points[i].X, req.Points[i].Y, req.Source, req.Target)
		}
		out.Results[i] = p
	}
	return out, nil
}

// lastUsed is the strategy naming the operation PROJ used for the last
// point transformed by pj.
func (t *transformer) lastUsed(pj *C.PJ) string {
	d := C.tp_pj_info(pj).description
	var desc []byte
	if d != nil {
		desc = unsafe.Slice((*byte)(unsafe.Pointer(d)), C.strlen(d))
	}
	if s, ok := t.used[string(desc)]; ok {
		return s
	}
	op := C.tp_last_used_operation(pj)
	if op == nil {
		return t.strategy
	}
	defer C.tp_destroy(op)
	s := t.strategy + ": " + describe(op)
	if len(desc) > 0 {
		if t.used == nil {
			t.used = map[string]string{}
		}
		t.used[string(desc)] = s
	}
	return s
}

// describe names an operation: "name (AUTH:CODE)" or its name.
func describe(op *C.PJ) string {
	name := C.GoString(C.tp_get_name(op))
	if a := C.tp_get_id_auth_name(op, 0); a != nil {
		return fmt.Sprintf("%s (%s:%s)", name, C.GoString(a), C.GoString(C.tp_get_id_code(op, 0)))
	}
	return name
}

func (c *projCtx) transformer(req TransformRequest) (*transformer, error) {
	k := req.key()
	if t, ok := c.transformers[k]; ok {
		return t, nil
	}
	if len(c.transformers) >= maxTransformers {
		c.reset()
	}
	var t *transformer
	var err error
	if len(req.Ops) == 0 {
		t, err = c.crsToCRS(req.Source, req.Target)
	} else {
		t, err = c.chain(req)
	}
	if err != nil {
		return nil, err
	}
	c.transformers[k] = t
	return t, nil
}

// normalized makes pj take and give the GIS axis order, destroying pj.
func (c *projCtx) normalized(pj *C.PJ) (*C.PJ, error) {
	n := C.tp_normalize_for_visualization(c.ctx, pj)
	C.tp_destroy(pj)
	if n == nil {
		return nil, fmt.Errorf("PROJ cannot normalize the axis order: %s", c.lastError())
	}
	return n, nil
}

// crsToCRS lets PROJ choose the operations (by area of use and accuracy,
// per point, among those it can instantiate here).
func (c *projCtx) crsToCRS(s, t Ref) (*transformer, error) {
	from, err := c.crs(s, "s_srs")
	if err != nil {
		return nil, err
	}
	defer C.tp_destroy(from)
	to, err := c.crs(t, "t_srs")
	if err != nil {
		return nil, err
	}
	defer C.tp_destroy(to)
	pj := C.tp_crs_to_crs(c.ctx, from, to)
	if pj == nil {
		return nil, invalid("no transformation from %s to %s: %s", s, t, c.lastError())
	}
	n, err := c.normalized(pj)
	if err != nil {
		return nil, err
	}
	return &transformer{steps: []step{{pj: n}}, strategy: "proj_create_crs_to_crs", auto: true}, nil
}

// crs creates a CRS of the database; a code that is none is a 400.
func (c *projCtx) crs(id Ref, param string) (*C.PJ, error) {
	auth, code := C.CString(id.Authority), C.CString(string(id.Code))
	defer C.free(unsafe.Pointer(auth))
	defer C.free(unsafe.Pointer(code))
	pj := C.tp_create_from_database(c.ctx, auth, code, C.PJ_CATEGORY_CRS)
	if pj == nil {
		C.tp_context_errno(c.ctx)
		return nil, invalid("%s: %s is not a coordinate reference system of PROJ's database", param, id)
	}
	return pj, nil
}

// chain applies the given operations in order, each forward or inverse so
// that it starts where the previous one ended: the first at the source CRS,
// the last ending at the target CRS.
func (c *projCtx) chain(req TransformRequest) (*transformer, error) {
	t := &transformer{strategy: "ops"}
	fail := func(err error) (*transformer, error) {
		for _, s := range t.steps {
			C.tp_destroy(s.pj)
		}
		return nil, err
	}
	at := req.Source
	var names []string
	for _, op := range req.Ops {
		urn := C.CString("urn:ogc:def:coordinateOperation:" + op.Authority + "::" + string(op.Code))
		pj := C.tp_create(c.ctx, urn)
		C.free(unsafe.Pointer(urn))
		if pj == nil {
			return fail(invalid("ops: %s is not a coordinate operation of PROJ's database", op))
		}
		from, to := c.crsID(pj, true), c.crsID(pj, false)
		var inverse bool
		switch at {
		case from:
			at = to
		case to:
			inverse, at = true, from
		default:
			C.tp_destroy(pj)
			return fail(invalid("ops: %s goes from %s to %s and does not start from %s", op, from, to, at))
		}
		d := describe(pj)
		if inverse {
			d = "inverse of " + d
		}
		names = append(names, d)
		n, err := c.normalized(pj)
		if err != nil {
			return fail(err)
		}
		t.steps = append(t.steps, step{pj: n, inverse: inverse})
	}
	if at != req.Target {
		return fail(invalid("ops: the operations end at %s, not at the target CRS %s", at, req.Target))
	}
	t.strategy = "ops: " + strings.Join(names, " | ")
	return t, nil
}

// crsID is the id of an operation's source (or target) CRS.
func (c *projCtx) crsID(op *C.PJ, source bool) Ref {
	var crs *C.PJ
	if source {
		crs = C.tp_get_source_crs(c.ctx, op)
	} else {
		crs = C.tp_get_target_crs(c.ctx, op)
	}
	if crs == nil {
		return Ref{}
	}
	defer C.tp_destroy(crs)
	a := C.tp_get_id_auth_name(crs, 0)
	if a == nil {
		return Ref{}
	}
	return Ref{C.GoString(a), Code(C.GoString(C.tp_get_id_code(crs, 0)))}
}
