// Package style reads, validates and prepares GL styles (version 8 of the
// MapLibre / Mapbox GL style specification) for serving.
//
// Parse keeps the whole document as ordered generic JSON, so properties this
// package does not know survive a round trip unchanged, and exposes typed
// views of what the server needs (sources, layers, glyphs, sprite...).
// Validate checks a style against the machine-readable specification (v8.json,
// embedded as DefaultSpec) and reports errors with the JSON paths and messages
// of the reference validator (gl-style-validate). Rewrite turns the resource
// URLs of a style (sources, tiles, glyphs, sprites) into absolute public URLs
// of the server and reports references to missing tilesets.
//
// Known differences from gl-style-validate: the duplicate layer id message
// names the index of the first use ("previously used at layers[0]") rather
// than its line; expression type checks are those of internal/style/expr;
// the "text-font" rule that outputs be literals is decided on the JSON form
// of the expression; warnings (severity "warning" in newer versions of the
// reference) are not produced. TestAgainstGLStyleValidate measures the
// agreement on the shared fixtures and on thousands of broken variants.
//
// The package knows nothing of HTTP.
package style

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Style is a parsed GL style. The typed fields are a read-only view of the
// document; values of the wrong JSON type are left at their zero value (the
// validator reports them).
type Style struct {
	doc *Object

	Version int    // "version" (8 for a valid style)
	Name    string // "name"
	Glyphs  string // "glyphs" URL template
	// Sprites lists the sprite sheets: one with ID "default" when "sprite" is
	// a string, or the {id, url} entries of the array form.
	Sprites     []Sprite
	SpriteArray bool      // "sprite" was given in the array form
	Center      []float64 // "center" [lon, lat], nil when absent or invalid
	Zoom        *float64  // "zoom"
	Metadata    *Object   // "metadata"

	// Sources in document order, and by name.
	Sources     []*Source
	SourceByKey map[string]*Source
	Layers      []*Layer
}

// Sprite is one sprite sheet reference.
type Sprite struct {
	ID  string
	URL string
}

// Source is the typed view of one entry of "sources".
type Source struct {
	Name     string
	Type     string
	URL      string
	Tiles    []string
	TileSize int
	MinZoom  *float64
	MaxZoom  *float64
	Bounds   []float64 // [w, s, e, n] when given
	Raw      *Object   // the source object itself
}

// Layer is the typed view of one entry of "layers".
type Layer struct {
	ID          string
	Type        string
	Ref         string
	Source      string
	SourceLayer string
	Layout      *Object
	Paint       *Object
	Filter      any // decoded JSON, nil when absent
	MinZoom     *float64
	MaxZoom     *float64
	Raw         *Object
}

// Parse decodes a style document. It fails only when data is not a JSON
// object or exceeds the limits (MaxStyleSize, MaxDepth); whether the style
// follows the specification is Validate's job.
func Parse(data []byte) (*Style, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse style: %w", err)
	}
	doc, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("parse style: object expected, %s found", jsType(v))
	}
	return fromDoc(doc), nil
}

// Doc returns the document (not a copy: callers must not modify it).
func (s *Style) Doc() *Object { return s.doc }

// MarshalJSON writes the document, members in their original order.
func (s *Style) MarshalJSON() ([]byte, error) {
	if s == nil || s.doc == nil {
		return nil, errors.New("style: nil document")
	}
	return s.doc.MarshalJSON()
}

func fromDoc(doc *Object) *Style {
	s := &Style{doc: doc, SourceByKey: map[string]*Source{}}
	if f, ok := numAt(doc, "version"); ok && f == math.Trunc(f) && math.Abs(f) < 1<<31 {
		s.Version = int(f)
	}
	s.Name = strAt(doc, "name")
	s.Glyphs = strAt(doc, "glyphs")
	switch sp := get(doc, "sprite").(type) {
	case string:
		s.Sprites = []Sprite{{ID: "default", URL: sp}}
	case []any:
		s.SpriteArray = true
		for _, e := range sp {
			if o, ok := e.(*Object); ok {
				s.Sprites = append(s.Sprites, Sprite{ID: strAt(o, "id"), URL: strAt(o, "url")})
			}
		}
	}
	s.Center = numbers(get(doc, "center"), 2)
	s.Zoom = numPtr(doc, "zoom")
	s.Metadata, _ = get(doc, "metadata").(*Object)
	if srcs, ok := get(doc, "sources").(*Object); ok {
		for _, name := range srcs.keys {
			o, ok := srcs.vals[name].(*Object)
			if !ok {
				continue
			}
			src := &Source{
				Name:    name,
				Type:    strAt(o, "type"),
				URL:     strAt(o, "url"),
				MinZoom: numPtr(o, "minzoom"),
				MaxZoom: numPtr(o, "maxzoom"),
				Bounds:  numbers(get(o, "bounds"), 4),
				Raw:     o,
			}
			if ts, ok := numAt(o, "tileSize"); ok && ts == math.Trunc(ts) && ts > 0 && ts < 1<<20 {
				src.TileSize = int(ts)
			}
			if tiles, ok := get(o, "tiles").([]any); ok {
				for _, t := range tiles {
					if str, ok := t.(string); ok {
						src.Tiles = append(src.Tiles, str)
					}
				}
			}
			s.Sources = append(s.Sources, src)
			s.SourceByKey[name] = src
		}
	}
	if layers, ok := get(doc, "layers").([]any); ok {
		for _, e := range layers {
			o, ok := e.(*Object)
			if !ok {
				continue
			}
			l := &Layer{
				ID:          strAt(o, "id"),
				Type:        strAt(o, "type"),
				Ref:         strAt(o, "ref"),
				Source:      strAt(o, "source"),
				SourceLayer: strAt(o, "source-layer"),
				Filter:      get(o, "filter"),
				MinZoom:     numPtr(o, "minzoom"),
				MaxZoom:     numPtr(o, "maxzoom"),
				Raw:         o,
			}
			l.Layout, _ = get(o, "layout").(*Object)
			l.Paint, _ = get(o, "paint").(*Object)
			s.Layers = append(s.Layers, l)
		}
	}
	return s
}

func get(o *Object, k string) any {
	v, _ := o.Get(k)
	return v
}

func strAt(o *Object, k string) string {
	s, _ := get(o, k).(string)
	return s
}

func numAt(o *Object, k string) (float64, bool) {
	v, ok := o.Get(k)
	if !ok {
		return 0, false
	}
	if _, isNum := v.(json.Number); !isNum {
		return 0, false
	}
	return num(v)
}

func numPtr(o *Object, k string) *float64 {
	f, ok := numAt(o, k)
	if !ok {
		return nil
	}
	return &f
}

// numbers returns v as n numbers, or nil.
func numbers(v any, n int) []float64 {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil
	}
	out := make([]float64, n)
	for i, e := range a {
		if _, isNum := e.(json.Number); !isNum {
			return nil
		}
		f, ok := num(e)
		if !ok {
			return nil
		}
		out[i] = f
	}
	return out
}
