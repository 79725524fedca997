package style

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// The specification is data published by the MapLibre project under the
// BSD-3-Clause licence; specdata/LICENSE.txt travels with the copy.
// embeddedSpec is the specification as programs read it: v8.json without
// its documentation members (doc, example, sdk-support), compact. It is a
// fifth of the size and decodes in a fraction of the time; a test holds it
// to v8.json.
//
//go:embed specdata/v8.min.json
var embeddedSpec []byte

// Spec is a loaded style specification (v8.json).
type Spec struct {
	doc     *Object
	version int
	exprOps map[string]bool

	propSpecs sync.Map     // *Object (a property's spec entry) -> *expr.PropertySpec, or nil
	propCount atomic.Int64 // entries in propSpecs, bounded by maxPropSpecs

	allPropsOnce sync.Once // builds allProps (PropertySpecs)
	allProps     map[string]map[string]*expr.PropertySpec
}

// maxPropSpecs bounds the cache of property specs (the specification has a
// few hundred properties; the bound only guards against spec objects built
// on the fly).
const maxPropSpecs = 4096

// LoadSpec reads a style specification from a file.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load style spec %s: %w", path, err)
	}
	spec, err := LoadSpecBytes(data)
	if err != nil {
		return nil, fmt.Errorf("load style spec %s: %w", path, err)
	}
	return spec, nil
}

// LoadSpecBytes reads a style specification from its JSON text.
func LoadSpecBytes(data []byte) (*Spec, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("style spec: %w", err)
	}
	return specOf(v)
}

// specOf returns the specification of a decoded document.
func specOf(v any) (*Spec, error) {
	doc, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("style spec: object expected, %s found", jsType(v))
	}
	root, ok := get(doc, "$root").(*Object)
	if !ok || root.Len() == 0 {
		return nil, fmt.Errorf("style spec: no $root")
	}
	sp := &Spec{doc: doc, exprOps: map[string]bool{}}
	if f, ok := numAt(doc, "$version"); ok {
		sp.version = int(f)
	}
	if names, ok := get(doc, "expression_name").(*Object); ok {
		if vals, ok := get(names, "values").(*Object); ok {
			for _, k := range vals.keys {
				sp.exprOps[k] = true
			}
		}
	}
	if len(sp.exprOps) == 0 {
		return nil, fmt.Errorf("style spec: no expression_name values")
	}
	return sp, nil
}

var (
	defaultSpecOnce sync.Once
	defaultSpec     *Spec
)

// DefaultSpec returns the embedded specification. It is decoded by
// decodeSpecJSON, which reads it as decodeJSON does in a fraction of the
// time (a test holds the two to the same result).
func DefaultSpec() *Spec {
	defaultSpecOnce.Do(func() {
		v, err := decodeSpecJSON(embeddedSpec)
		if err != nil {
			panic(fmt.Sprintf("style: embedded spec: %v", err)) // a build defect, caught by the tests
		}
		sp, err := specOf(v)
		if err != nil {
			panic(fmt.Sprintf("style: embedded spec: %v", err)) // a build defect, caught by the tests
		}
		defaultSpec = sp
	})
	return defaultSpec
}

// Version returns the specification's $version.
func (sp *Spec) Version() int { return sp.version }

// IsExpressionOperator reports whether name is an expression operator.
func (sp *Spec) IsExpressionOperator(name string) bool { return sp.exprOps[name] }

// entry returns a top-level entry of the specification, such as "layer" or
// "paint_fill".
func (sp *Spec) entry(name string) *Object {
	o, _ := get(sp.doc, name).(*Object)
	return o
}

// propertySpec returns the expression compiler's view of a property spec
// entry, cached (nil when the entry does not decode).
func (sp *Spec) propertySpec(o *Object) *expr.PropertySpec {
	if v, ok := sp.propSpecs.Load(o); ok {
		return v.(*expr.PropertySpec)
	}
	ps := new(expr.PropertySpec)
	if err := json.Unmarshal(specJSON(o), ps); err != nil {
		ps = nil
	}
	if sp.propCount.Load() < maxPropSpecs {
		if _, loaded := sp.propSpecs.LoadOrStore(o, ps); !loaded {
			sp.propCount.Add(1)
		}
	}
	return ps
}

// specJSON renders a spec entry back to JSON (for the expression compiler).
func specJSON(o *Object) json.RawMessage {
	b, err := o.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

// SpecJSON returns the embedded style specification document: v8.json
// without its documentation members (prose, examples, SDK support).
func SpecJSON() []byte { return embeddedSpec }

// PropertySpecs returns the expression compiler's view of every paint and
// layout property of the specification, by section ("paint_fill", ...)
// and name: read from the decoded document, as expr.PropertySpecs reads
// the sections' JSON, without decoding JSON a second time. Built once a
// specification; the result is shared: callers must not modify it.
func (sp *Spec) PropertySpecs() map[string]map[string]*expr.PropertySpec {
	sp.allPropsOnce.Do(func() {
		out := map[string]map[string]*expr.PropertySpec{}
		for _, section := range sp.doc.keys {
			if !strings.HasPrefix(section, "paint_") && !strings.HasPrefix(section, "layout_") {
				continue
			}
			if m := sp.SectionSpecs(section); m != nil {
				out[section] = m
			}
		}
		sp.allProps = out
	})
	return sp.allProps
}

// SectionSpecs returns the property specs of one section of the
// specification, such as "light" or "paint_fill", nil if it has none.
func (sp *Spec) SectionSpecs(section string) map[string]*expr.PropertySpec {
	props, ok := get(sp.doc, section).(*Object)
	if !ok {
		return nil
	}
	m := make(map[string]*expr.PropertySpec, props.Len())
	for _, name := range props.keys {
		if o, ok := get(props, name).(*Object); ok {
			m[name] = exprPropertySpec(o)
		}
	}
	return m
}

// exprPropertySpec reads a property's spec entry into the expression
// compiler's form, field by field as expr.PropertySpec decodes the entry's
// JSON (enum values from an object's keys or an array's strings).
func exprPropertySpec(o *Object) *expr.PropertySpec {
	ps := &expr.PropertySpec{
		Type:         strAt(o, "type"),
		Value:        strAt(o, "value"),
		PropertyType: strAt(o, "property-type"),
	}
	if n, ok := numAt(o, "length"); ok {
		ps.Length = int(n)
	}
	if e, ok := get(o, "expression").(*Object); ok {
		es := &expr.ExpressionSupport{}
		es.Interpolated, _ = get(e, "interpolated").(bool)
		if params, ok := get(e, "parameters").([]any); ok {
			for _, p := range params {
				if s, ok := p.(string); ok {
					es.Parameters = append(es.Parameters, s)
				}
			}
		}
		ps.Expression = es
	}
	if d, ok := o.Get("default"); ok {
		var b bytes.Buffer
		if writeJSON(&b, d) == nil {
			ps.Default = b.Bytes()
		}
	}
	ps.Tokens, _ = get(o, "tokens").(bool)
	switch v := get(o, "values").(type) {
	case *Object:
		ps.Values = append(ps.Values, v.keys...)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				ps.Values = append(ps.Values, s)
			}
		}
	}
	return ps
}
