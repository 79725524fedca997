package scene

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// maxPrepared bounds the styles whose compiled layers are kept.
const maxPrepared = 64

// Prepared holds a style's layers compiled once: filters and
// property expressions, or why a layer cannot be drawn.
type Prepared struct {
	Layers []Compiled
}

// Compiled is one layer compiled: its filter and properties, or Err, why
// it cannot be drawn.
type Compiled struct {
	Filter *expr.Expression
	Props  map[string]*expr.Expression
	Err    error
}

// Compiler compiles the layers of styles against the property specs of
// the style specification. It keeps prepared styles by identity: a caller
// that renders one parsed style many times (a map's tiles) compiles it
// once. When full the cache is emptied; styles are cheap to prepare again.
// It is safe for concurrent use.
type Compiler struct {
	specs map[string]map[string]*expr.PropertySpec
	log   *slog.Logger
	mu    sync.Mutex
	m     map[*style.Style]*Prepared
	// defaults holds the compiled default of each property.
	defaults sync.Map
}

// NewCompiler returns a compiler of the embedded specification's
// properties that logs the layers and properties it skips to log.
func NewCompiler(log *slog.Logger) *Compiler {
	// The property specs of the embedded specification, read from the
	// document the style checker decodes too (shared: never modified).
	return &Compiler{specs: style.DefaultSpec().PropertySpecs(), log: log}
}

// Prepare returns st's compiled layers, compiling them (and logging the
// layers that cannot be drawn) the first time.
func (lc *Compiler) Prepare(st *style.Style) *Prepared {
	lc.mu.Lock()
	p, ok := lc.m[st]
	lc.mu.Unlock()
	if ok {
		return p
	}
	p = &Prepared{Layers: make([]Compiled, len(st.Layers))}
	for i, l := range st.Layers {
		lr := &Layer{Style: l}
		if err := lc.Compile(lr); err != nil {
			lc.log.Warn("render: layer skipped", "layer", l.ID, "err", err)
			p.Layers[i].Err = err
			continue
		}
		p.Layers[i] = Compiled{Filter: lr.Filter, Props: lr.Props}
	}
	lc.mu.Lock()
	if lc.m == nil || len(lc.m) >= maxPrepared {
		lc.m = map[*style.Style]*Prepared{}
	}
	lc.m[st] = p
	lc.mu.Unlock()
	return p
}

// Compile prepares the layer's filter and properties.
func (lc *Compiler) Compile(lr *Layer) error {
	lr.Props = map[string]*expr.Expression{}
	if lr.Style.Filter != nil {
		f, errs := expr.CompileFilter(lr.Style.Filter)
		if len(errs) > 0 {
			return fmt.Errorf("filter: %s", errs[0].Message)
		}
		lr.Filter = f
	}
	for _, kind := range []string{"paint", "layout"} {
		specs := lc.specs[kind+"_"+lr.Style.Type]
		obj := lr.Style.Paint
		if kind == "layout" {
			obj = lr.Style.Layout
		}
		for name, spec := range specs {
			var e *expr.Expression
			var errs []expr.CompileError
			if obj != nil {
				if raw, ok := obj.Get(name); ok {
					e, errs = expr.CompileValue(raw, spec)
				}
			}
			if e == nil && len(errs) == 0 && len(spec.Default) > 0 {
				e, errs = lc.defaultValue(kind+"_"+lr.Style.Type, name, spec)
			}
			if len(errs) > 0 {
				// One broken property is left at nothing; the rest draws.
				lc.log.Warn("render: property skipped", "layer", lr.Style.ID, "property", name, "err", errs[0].Message)
				continue
			}
			if e != nil {
				lr.Props[name] = e
			}
		}
	}
	return nil
}

// defaultValue returns the compiled default of a property, compiled once
// per renderer: every layer of every style that leaves the property out
// shares it (expressions are safe for concurrent evaluation).
func (lc *Compiler) defaultValue(group, name string, spec *expr.PropertySpec) (*expr.Expression, []expr.CompileError) {
	key := group + "/" + name
	if e, ok := lc.defaults.Load(key); ok {
		return e.(*expr.Expression), nil
	}
	e, errs := expr.CompileValue(spec.Default, spec)
	if len(errs) == 0 && e != nil {
		lc.defaults.Store(key, e)
	}
	return e, errs
}
