package style

import "strings"

// Resources are the fonts and icons a style names with constant values.
type Resources struct {
	// Fonts are the font names of text-font values.
	Fonts []string
	// Icons are the image names of icon-image (and pattern) values that are
	// constants or constant outputs of expressions; names with {tokens}
	// depend on feature data and are left out.
	Icons []string
}

// imageProperties name images from the sprite.
var imageProperties = []string{"icon-image", "fill-pattern", "line-pattern", "fill-extrusion-pattern", "background-pattern"}

// Resources lists the fonts and icons the style's layers name.
func (s *Style) Resources() Resources {
	fonts, icons := map[string]bool{}, map[string]bool{}
	var r Resources
	add := func(set map[string]bool, list *[]string, name string) {
		if name != "" && !strings.ContainsAny(name, "{}") && !set[name] {
			set[name] = true
			*list = append(*list, name)
		}
	}
	for _, l := range s.Layers {
		for _, props := range []*Object{l.Layout, l.Paint} {
			if props == nil {
				continue
			}
			if v, ok := props.Get("text-font"); ok {
				for _, f := range fontNames(v) {
					add(fonts, &r.Fonts, f)
				}
			}
			for _, p := range imageProperties {
				if v, ok := props.Get(p); ok {
					for _, name := range outputs(v, 0) {
						add(icons, &r.Icons, name)
					}
				}
			}
		}
	}
	return r
}

// fontNames gathers the font names of a text-font value: a plain array
// of names, or the arrays inside an expression's "literal" forms.
func fontNames(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		if o, isObj := v.(*Object); isObj { // legacy function: {stops: [[z, [fonts]]]}
			if stops, ok := o.Get("stops"); ok {
				var out []string
				if ss, ok := stops.([]any); ok {
					for _, st := range ss {
						if pair, ok := st.([]any); ok && len(pair) == 2 {
							out = append(out, fontNames(pair[1])...)
						}
					}
				}
				return out
			}
		}
		return nil
	}
	allStrings := len(arr) > 0
	for _, e := range arr {
		if _, ok := e.(string); !ok {
			allStrings = false
		}
	}
	if allStrings && !isOperator(arr) {
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			out = append(out, e.(string))
		}
		return out
	}
	var out []string
	for _, e := range arr[1:] {
		out = append(out, fontNames(e)...)
	}
	if len(arr) == 2 && arr[0] == "literal" {
		if inner, ok := arr[1].([]any); ok {
			for _, e := range inner {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// isOperator reports whether an array of strings reads as an expression
// (["get", "x"], ["zoom"]...): its first element is an operator name.
func isOperator(arr []any) bool {
	s, ok := arr[0].(string)
	return ok && DefaultSpec().IsExpressionOperator(s)
}

// outputs returns the constant string results an image value can take.
func outputs(v any, depth int) []string {
	if depth > 32 {
		return nil
	}
	switch x := v.(type) {
	case string:
		return []string{x}
	case *Object: // legacy function
		var out []string
		if stops, ok := x.Get("stops"); ok {
			if ss, ok := stops.([]any); ok {
				for _, st := range ss {
					if pair, ok := st.([]any); ok && len(pair) == 2 {
						out = append(out, outputs(pair[1], depth+1)...)
					}
				}
			}
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		op, _ := x[0].(string)
		var out []string
		switch op {
		case "literal", "image", "to-string":
			if len(x) == 2 {
				out = outputs(x[1], depth+1)
			}
		case "coalesce":
			for _, e := range x[1:] {
				out = append(out, outputs(e, depth+1)...)
			}
		case "case": // condition, output pairs, then the default
			for i := 2; i < len(x); i += 2 {
				out = append(out, outputs(x[i], depth+1)...)
			}
			if len(x)%2 == 0 {
				out = append(out, outputs(x[len(x)-1], depth+1)...)
			}
		case "match": // input, label, output pairs, then the default
			for i := 3; i < len(x); i += 2 {
				out = append(out, outputs(x[i], depth+1)...)
			}
			if len(x)%2 == 1 {
				out = append(out, outputs(x[len(x)-1], depth+1)...)
			}
		case "step": // input, first output, then stop, output pairs
			for i := 2; i < len(x); i += 2 {
				out = append(out, outputs(x[i], depth+1)...)
			}
		}
		return out
	}
	return nil
}

// Tilesets lists the names of the server's own tilesets that the style's
// sources name (mbtiles://NAME, pmtiles://NAME, or a /tiles/NAME/ path of
// this server), each once, without a .mbtiles or .pmtiles extension. The
// names are found by the same code that rewrites the URLs when the style is
// served.
func (s *Style) Tilesets() []string {
	var names []string
	seen := map[string]bool{}
	s.Rewrite(Resolver{MapID: "_", Tileset: func(name string) (string, bool) {
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".mbtiles"), ".pmtiles")
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return name, true
	}})
	return names
}
