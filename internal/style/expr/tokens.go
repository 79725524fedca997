package expr

import "strings"

// ResolveTokens replaces "{name}" tokens in a legacy text-field or
// icon-image string with the feature's property values (missing properties
// become empty), as renderers do for constant, non-expression values of
// properties that accept tokens. A value is written as JavaScript's
// String() writes it (jsStringForm), as GL JS draws it.
func ResolveTokens(f Feature, s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var sb strings.Builder
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open+1:], '}')
		if end < 0 {
			break
		}
		name := s[open+1 : open+1+end]
		if name == "" || strings.ContainsRune(name, '{') {
			sb.WriteString(s[:open+1])
			s = s[open+1:]
			continue
		}
		sb.WriteString(s[:open])
		if f != nil {
			if v, ok := f.Property(name); ok {
				sb.WriteString(jsStringForm(v))
			}
		}
		s = s[open+1+end+1:]
	}
	sb.WriteString(s)
	return sb.String()
}

// jsStringForm writes v as JavaScript's String(v): null as "null", an
// array as its items' forms joined by commas (a null item empty), an
// object as "[object Object]", anything else as to-string writes it.
func jsStringForm(v Value) string {
	switch v.Kind() {
	case KindNull:
		return "null"
	case KindObject:
		return "[object Object]"
	case KindArray:
		items := v.Items()
		parts := make([]string, len(items))
		for i, it := range items {
			if !it.IsNull() {
				parts[i] = jsStringForm(it)
			}
		}
		return strings.Join(parts, ",")
	}
	return toStringValue(v)
}
