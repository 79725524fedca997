package style

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits applied by Parse.
const (
	// MaxStyleSize is the largest style document Parse accepts, in bytes.
	MaxStyleSize = 64 << 20
	// MaxDepth is the deepest nesting of arrays and objects Parse accepts.
	MaxDepth = 256
)

// Object is a JSON object that keeps its members in document order, so that
// a style served back to clients looks like the file on disk. Values held in
// an Object (and in the arrays below it) are nil, bool, json.Number, string,
// []any or *Object.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Len returns the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the member names in document order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return append([]string(nil), o.keys...)
}

// Get returns the member named k.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// Has reports whether the object has a member named k.
func (o *Object) Has(k string) bool {
	_, ok := o.Get(k)
	return ok
}

// Set sets member k, appending it when new.
func (o *Object) Set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes member k.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// MarshalJSON writes the object with its members in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSON encodes a decoded value compactly, without HTML escaping,
// numbers as written in the source.
func writeJSON(b *bytes.Buffer, v any) error { return encodeJSON(b, v, false) }

// encodeJSON encodes a decoded value; jsNumbers rewrites numbers as
// JavaScript prints them (for messages).
func encodeJSON(b *bytes.Buffer, v any, jsNumbers bool) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		if f, ok := num(t); ok && jsNumbers {
			b.WriteString(jsNumber(f))
		} else {
			b.WriteString(t.String())
		}
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("json: unsupported number %v", t)
		}
		b.WriteString(jsNumber(t))
	case string:
		writeString(b, t)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeJSON(b, e, jsNumbers); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		if t != nil {
			for i, k := range t.keys {
				if i > 0 {
					b.WriteByte(',')
				}
				writeString(b, k)
				b.WriteByte(':')
				if err := encodeJSON(b, t.vals[k], jsNumbers); err != nil {
					return err
				}
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("json: unsupported value of type %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
}

// stringify renders a value as JavaScript's JSON.stringify would, for messages.
func stringify(v any) string {
	var b bytes.Buffer
	if err := encodeJSON(&b, v, true); err != nil {
		return "null"
	}
	return b.String()
}

// decodeJSON decodes one JSON document into ordered values, enforcing the
// size and depth limits.
func decodeJSON(data []byte) (any, error) {
	if len(data) > MaxStyleSize {
		return nil, fmt.Errorf("document is %d bytes, more than the limit of %d", len(data), MaxStyleSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("JSON nested deeper than %d levels", MaxDepth)
		}
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key expected, %v found", kt)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return tok, nil // nil, bool, json.Number, string
	}
}

// deepCopy copies a decoded value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = deepCopy(e)
		}
		return c
	case *Object:
		if t == nil {
			return (*Object)(nil)
		}
		c := &Object{keys: append([]string(nil), t.keys...), vals: make(map[string]any, len(t.vals))}
		for k, e := range t.vals {
			c.vals[k] = deepCopy(e)
		}
		return c
	default:
		return v
	}
}

// jsType names the type of a decoded value as JavaScript's validator does.
func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object:
		return "object"
	}
	return "undefined"
}

// num returns the value of a JSON number.
func num(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			// Out of range numbers become ±Inf, as in JavaScript.
			var ne *strconv.NumError
			if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
				return f, true
			}
			return 0, false
		}
		return f, true
	case float64:
		return t, true
	}
	return 0, false
}

// jsNumber formats a number as JavaScript's Number.prototype.toString does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+07, JavaScript e+7.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// jsString converts a value to a string as JavaScript's template literals do
// (for messages such as `layer "${layer.id}"`).
func jsString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case bool:
		if t {
			return "true"
		}
		return "false"
	case json.Number, float64:
		f, _ := num(t)
		return jsNumber(f)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case *Object:
		return "[object Object]"
	}
	return "undefined"
}

// truthy reports JavaScript truthiness of a decoded value (absent is false).
func truthy(v any, present bool) bool {
	if !present {
		return false
	}
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number, float64:
		f, _ := num(t)
		return f != 0 && !math.IsNaN(f)
	}
	return true
}
