package render

import (
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"

	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// maxPrepared bounds the styles whose compiled layers are kept.
const maxPrepared = 64

// preparedStyle holds a style's layers compiled once: filters and
// property expressions, or why a layer cannot be drawn.
type preparedStyle struct {
	layers []compiledLayer
}

type compiledLayer struct {
	filter *expr.Expression
	props  map[string]*expr.Expression
	err    error
}

// preparedCache keeps prepared styles by identity: a caller that renders
// one parsed style many times (a map's tiles) compiles it once. When full
// it is emptied; styles are cheap to prepare again.
type preparedCache struct {
	mu sync.Mutex
	m  map[*style.Style]*preparedStyle
}

// prepare returns st's compiled layers, compiling them (and logging the
// layers that cannot be drawn) the first time.
func (r *Renderer) prepare(st *style.Style) *preparedStyle {
	r.prep.mu.Lock()
	p, ok := r.prep.m[st]
	r.prep.mu.Unlock()
	if ok {
		return p
	}
	p = &preparedStyle{layers: make([]compiledLayer, len(st.Layers))}
	for i, l := range st.Layers {
		lr := &layerRender{r: r, l: l}
		if err := lr.compile(); err != nil {
			r.log.Warn("render: layer skipped", "layer", l.ID, "err", err)
			p.layers[i].err = err
			continue
		}
		p.layers[i] = compiledLayer{filter: lr.filter, props: lr.props}
	}
	r.prep.mu.Lock()
	if r.prep.m == nil || len(r.prep.m) >= maxPrepared {
		r.prep.m = map[*style.Style]*preparedStyle{}
	}
	r.prep.m[st] = p
	r.prep.mu.Unlock()
	return p
}

// maskPool keeps coverage masks between renders: a tile server draws many
// pictures of one size, and a mask is four bytes a pixel to clear.
var maskPool sync.Pool

// getMask returns an empty mask of w x h, reused when one of that size is
// free (masks are left empty by the layers that use them).
func getMask(w, h int) *raster.Mask {
	if m, ok := maskPool.Get().(*raster.Mask); ok && m.W == w && m.H == h {
		m.Reset()
		return m
	}
	return raster.NewMask(w, h)
}

// defaultValue returns the compiled default of a property, compiled once
// per renderer: every layer of every style that leaves the property out
// shares it (expressions are safe for concurrent evaluation).
func (r *Renderer) defaultValue(group, name string, spec *expr.PropertySpec) (*expr.Expression, []expr.CompileError) {
	key := group + "/" + name
	if e, ok := r.defaults.Load(key); ok {
		return e.(*expr.Expression), nil
	}
	e, errs := expr.CompileValue(spec.Default, spec)
	if len(errs) == 0 && e != nil {
		r.defaults.Store(key, e)
	}
	return e, errs
}
