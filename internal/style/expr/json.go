package expr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jobj is a decoded JSON object that keeps key order. Parsed JSON is made of
// nil, bool, float64, string, []any and *jobj.
type jobj struct {
	keys []string
	vals []any
}

func (o *jobj) get(k string) (any, bool) {
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// maxJSONDepth bounds nesting of decoded JSON and of expressions.
const maxJSONDepth = 200

// maxJSONNodes bounds the number of JSON values in one expression.
const maxJSONNodes = 1 << 20

var errTooDeep = errors.New("expression nested too deeply")

// decodeJSON decodes JSON into the ordered representation.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	count := 0
	v, err := decodeValue(dec, 0, &count)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int, count *int) (any, error) {
	*count++
	if *count > maxJSONNodes {
		return nil, errors.New("expression too large")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return decodeTok(dec, tok, depth, count)
}

func decodeTok(dec *json.Decoder, tok json.Token, depth int, count *int) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, errTooDeep
		}
		switch t {
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1, count)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			o := &jobj{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("invalid object key")
				}
				v, err := decodeValue(dec, depth+1, count)
				if err != nil {
					return nil, err
				}
				replaced := false
				for i, kk := range o.keys {
					if kk == k {
						o.vals[i] = v
						replaced = true
					}
				}
				if !replaced {
					o.keys = append(o.keys, k)
					o.vals = append(o.vals, v)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case json.Number:
		return parseNumber(t)
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// parseNumber reads a JSON number; one beyond float64's range is an
// infinity, as in JavaScript.
func parseNumber(n json.Number) (any, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return nil, err
	}
	return f, nil
}

// normalizeJSON converts generic Go values (as from encoding/json) to the
// ordered representation. Map keys are sorted for determinism.
func normalizeJSON(v any, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errTooDeep
	}
	switch t := v.(type) {
	case nil, bool, string, float64:
		return t, nil
	case int:
		return float64(t), nil
	case int64:
		return float64(t), nil
	case int32:
		return float64(t), nil
	case uint:
		return float64(t), nil
	case uint64:
		return float64(t), nil
	case uint32:
		return float64(t), nil
	case float32:
		return float64(t), nil
	case json.Number:
		return parseNumber(t)
	case json.RawMessage:
		return decodeJSON(t)
	case []byte:
		return decodeJSON(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			n, err := normalizeJSON(x, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case []string:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = x
		}
		return out, nil
	case []float64:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = x
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := &jobj{}
		for _, k := range keys {
			n, err := normalizeJSON(t[k], depth+1)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, n)
		}
		return o, nil
	case *jobj:
		return t, nil
	case json.Marshaler:
		// Documents of other packages (a style's ordered objects) pass
		// through their JSON.
		b, err := t.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return decodeJSON(b)
	}
	return nil, fmt.Errorf("unsupported JSON value of type %T", v)
}

// jsonToValue converts decoded JSON to a Value.
func jsonToValue(v any) Value {
	switch t := v.(type) {
	case nil:
		return Null()
	case bool:
		return Bool(t)
	case float64:
		return Number(t)
	case string:
		return String(t)
	case []any:
		items := make([]Value, len(t))
		for i, x := range t {
			items[i] = jsonToValue(x)
		}
		return Array(items)
	case *jobj:
		o := &Object{keys: append([]string(nil), t.keys...), vals: make([]Value, len(t.vals))}
		for i, x := range t.vals {
			o.vals[i] = jsonToValue(x)
		}
		return ObjectValue(o)
	}
	return Null()
}

// ValueFromJSON decodes a JSON document into a Value (objects keep key order).
func ValueFromJSON(data []byte) (Value, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return Value{}, fmt.Errorf("decode value: %w", err)
	}
	return jsonToValue(v), nil
}

// ValueFromGo converts nil, bool, numbers, strings, []any and map[string]any to a Value.
func ValueFromGo(v any) (Value, error) {
	n, err := normalizeJSON(v, 0)
	if err != nil {
		return Value{}, err
	}
	return jsonToValue(n), nil
}

func jsTypeof(v any) string {
	switch v.(type) {
	case nil, []any, *jobj:
		return "object"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	}
	return "undefined"
}

// MarshalJSON renders the value as the reference implementation's
// JSON.stringify would (colors as premultiplied {r,g,b,a}).
func (v Value) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	writeJSON(&sb, v)
	return []byte(sb.String()), nil
}

func jsonString(s string) string {
	var sb strings.Builder
	writeJSONString(&sb, s)
	return sb.String()
}

func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r < 0x20 || (r == utf8.RuneError && size == 1):
			fmt.Fprintf(sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	sb.WriteByte('"')
}

func writeJSONNumber(sb *strings.Builder, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		sb.WriteString("null")
		return
	}
	sb.WriteString(jsNumber(f))
}

func writeColorJSON(sb *strings.Builder, c Color) {
	p := c.Premultiplied()
	sb.WriteString(`{"r":`)
	writeJSONNumber(sb, p[0])
	sb.WriteString(`,"g":`)
	writeJSONNumber(sb, p[1])
	sb.WriteString(`,"b":`)
	writeJSONNumber(sb, p[2])
	sb.WriteString(`,"a":`)
	writeJSONNumber(sb, p[3])
	sb.WriteByte('}')
}

func writeJSON(sb *strings.Builder, v Value) {
	switch v.Kind() {
	case KindNull:
		sb.WriteString("null")
	case KindBoolean:
		if v.b {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case KindNumber:
		writeJSONNumber(sb, v.n)
	case KindString:
		writeJSONString(sb, v.s)
	case KindColor:
		writeColorJSON(sb, v.Color())
	case KindArray:
		sb.WriteByte('[')
		for i, x := range v.Items() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSON(sb, x)
		}
		sb.WriteByte(']')
	case KindObject:
		o := v.Obj()
		sb.WriteByte('{')
		for i, k := range o.Keys() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSONString(sb, k)
			sb.WriteByte(':')
			writeJSON(sb, o.vals[i])
		}
		sb.WriteByte('}')
	case KindPadding, KindNumberArray:
		sb.WriteString(`{"values":[`)
		for i, f := range v.Floats() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSONNumber(sb, f)
		}
		sb.WriteString("]}")
	case KindColorArray:
		sb.WriteString(`{"values":[`)
		for i, c := range v.Colors() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeColorJSON(sb, c)
		}
		sb.WriteString("]}")
	case KindResolvedImage:
		writeImageJSON(sb, v.Image())
	case KindFormatted:
		sb.WriteString(`{"sections":[`)
		for i, s := range v.FormattedText().Sections {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"text":`)
			writeJSONString(sb, s.Text)
			sb.WriteString(`,"image":`)
			if s.Image != nil {
				writeImageJSON(sb, s.Image)
			} else {
				sb.WriteString("null")
			}
			sb.WriteString(`,"scale":`)
			if s.Scale != nil {
				writeJSONNumber(sb, *s.Scale)
			} else {
				sb.WriteString("null")
			}
			sb.WriteString(`,"fontStack":`)
			if s.FontStack != nil {
				writeJSONString(sb, *s.FontStack)
			} else {
				sb.WriteString("null")
			}
			sb.WriteString(`,"textColor":`)
			if s.TextColor != nil {
				writeColorJSON(sb, *s.TextColor)
			} else {
				sb.WriteString("null")
			}
			sb.WriteString(`,"verticalAlign":`)
			if s.VerticalAlign != nil {
				writeJSONString(sb, *s.VerticalAlign)
			} else {
				sb.WriteString("null")
			}
			sb.WriteByte('}')
		}
		sb.WriteString("]}")
	case KindProjectionDefinition:
		sb.WriteString(toStringValue(v))
	case KindVariableAnchorOffsetCollection:
		vo, _ := v.p.(*VariableAnchorOffsets)
		sb.WriteString(`{"values":[`)
		if vo != nil {
			for i, a := range vo.Anchors {
				if i > 0 {
					sb.WriteByte(',')
				}
				writeJSONString(sb, a)
				sb.WriteString(",[")
				writeJSONNumber(sb, vo.Offsets[i][0])
				sb.WriteByte(',')
				writeJSONNumber(sb, vo.Offsets[i][1])
				sb.WriteByte(']')
			}
		}
		sb.WriteString("]}")
	case KindCollator:
		sb.WriteString("{}")
	}
}

func writeImageJSON(sb *strings.Builder, r *ResolvedImage) {
	sb.WriteString(`{"name":`)
	writeJSONString(sb, r.Name)
	sb.WriteString(`,"available":`)
	if r.Available {
		sb.WriteString("true")
	} else {
		sb.WriteString("false")
	}
	sb.WriteByte('}')
}
