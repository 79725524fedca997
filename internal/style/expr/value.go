package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is an expression value: a small tagged union. The zero Value is null.
type Value struct {
	kind TypeKind
	b    bool
	n    float64
	s    string
	// p holds what the kind needs besides: *Color, []Value, *Object,
	// *Collator, *Formatted, *ResolvedImage, []float64, []Color,
	// *ProjectionDefinition, *VariableAnchorOffsets. A colour is kept
	// behind a pointer so that a Value stays 48 bytes: values are copied
	// through every evaluation and kept for every feature property.
	p any
}

// Object is a JSON object that keeps its key order.
type Object struct {
	keys []string
	vals []Value
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// ObjectOf returns an object over the given keys and values (same
// length, keys distinct), using the slices as they are: callers that build
// many small objects can carve them out of one allocation.
func ObjectOf(keys []string, vals []Value) *Object {
	return &Object{keys: keys, vals: vals}
}

// NewObjectSize returns an empty object with room for n keys.
func NewObjectSize(n int) *Object {
	return &Object{keys: make([]string, 0, n), vals: make([]Value, 0, n)}
}

// Set adds or replaces a key.
func (o *Object) Set(k string, v Value) {
	for i, kk := range o.keys {
		if kk == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// Get looks a key up.
func (o *Object) Get(k string) (Value, bool) {
	if o == nil {
		return Value{}, false
	}
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return Value{}, false
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// ResolvedImage is the value of the image expression.
type ResolvedImage struct {
	Name      string
	Available bool
}

// FormattedSection is one section of a formatted text value.
type FormattedSection struct {
	Text          string
	Image         *ResolvedImage
	Scale         *float64
	FontStack     *string
	TextColor     *Color
	VerticalAlign *string
}

// Formatted is the value of the format expression.
type Formatted struct {
	Sections []FormattedSection
}

// ProjectionDefinition is an interpolated projection transition.
type ProjectionDefinition struct {
	From, To   string
	Transition float64
}

// VariableAnchorOffsets is a variableAnchorOffsetCollection value: anchors with [x, y] offsets.
type VariableAnchorOffsets struct {
	Anchors []string
	Offsets [][2]float64
}

// Constructors.

// Null returns the null value.
func Null() Value { return Value{kind: KindNull} }

// Number returns a number value.
func Number(f float64) Value { return Value{kind: KindNumber, n: f} }

// String returns a string value.
func String(s string) Value { return Value{kind: KindString, s: s} }

// Bool returns a boolean value.
func Bool(b bool) Value { return Value{kind: KindBoolean, b: b} }

// ColorValue returns a color value.
func ColorValue(c Color) Value { return Value{kind: KindColor, p: &c} }

// Array returns an array value (the slice is not copied).
func Array(items []Value) Value { return Value{kind: KindArray, p: items} }

// ObjectValue returns an object value.
func ObjectValue(o *Object) Value { return Value{kind: KindObject, p: o} }

func paddingValue(v []float64) Value    { return Value{kind: KindPadding, p: v} }
func numberArrValue(v []float64) Value  { return Value{kind: KindNumberArray, p: v} }
func colorArrValue(v []Color) Value     { return Value{kind: KindColorArray, p: v} }
func imageValue(r *ResolvedImage) Value { return Value{kind: KindResolvedImage, p: r} }
func formattedValue(f *Formatted) Value { return Value{kind: KindFormatted, p: f} }
func collatorValue(c *Collator) Value   { return Value{kind: KindCollator, p: c} }
func projValue(p *ProjectionDefinition) Value {
	return Value{kind: KindProjectionDefinition, p: p}
}

// String renders the value as JSON (colors as premultiplied {r,g,b,a}).
func (v Value) String() string { return toStringJSON(v) }

// Accessors.

// Kind returns the kind of the value (KindNull for the zero Value).
func (v Value) Kind() TypeKind {
	if v.kind == KindValue {
		return KindNull
	}
	return v.kind
}

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == KindNull || v.kind == KindValue }

// Num returns the number (0 if not a number).
func (v Value) Num() float64 { return v.n }

// Str returns the string (empty if not a string).
func (v Value) Str() string { return v.s }

// Boolean returns the boolean (false if not a boolean).
func (v Value) Boolean() bool { return v.b }

// Color returns the color (zero if not a color).
func (v Value) Color() Color {
	if c, ok := v.p.(*Color); ok {
		return *c
	}
	return Color{}
}

// Items returns the array items, or nil.
func (v Value) Items() []Value {
	a, _ := v.p.([]Value)
	return a
}

// Obj returns the object, or nil.
func (v Value) Obj() *Object {
	o, _ := v.p.(*Object)
	return o
}

// Floats returns the values of a padding or numberArray value.
func (v Value) Floats() []float64 {
	f, _ := v.p.([]float64)
	return f
}

// Colors returns the values of a colorArray value.
func (v Value) Colors() []Color {
	c, _ := v.p.([]Color)
	return c
}

// AnchorOffsets returns a variableAnchorOffsetCollection's anchors and
// offsets, or nil.
func (v Value) AnchorOffsets() *VariableAnchorOffsets {
	o, _ := v.p.(*VariableAnchorOffsets)
	return o
}

// Image returns the resolved image, or nil.
func (v Value) Image() *ResolvedImage {
	r, _ := v.p.(*ResolvedImage)
	return r
}

// FormattedText returns the formatted value, or nil.
func (v Value) FormattedText() *Formatted {
	f, _ := v.p.(*Formatted)
	return f
}

// Projection returns the projection definition, or nil.
func (v Value) Projection() *ProjectionDefinition {
	p, _ := v.p.(*ProjectionDefinition)
	return p
}

// typeOfValue returns the runtime type of a value (typeOf in the reference).
func typeOfValue(v Value) Type {
	switch v.Kind() {
	case KindArray:
		items := v.Items()
		var it Type
		has := false
		for _, x := range items {
			t := typeOfValue(x)
			if !has {
				it, has = t, true
				continue
			}
			// Array item types only unify when they are the same primitive type.
			if t.Kind == KindArray || it.Kind == KindArray || t.Kind != it.Kind {
				it = ValueType
				break
			}
		}
		if !has {
			it = ValueType
		}
		return ArrayOf(it, len(items))
	default:
		return Type{Kind: v.Kind(), N: -1}
	}
}

// valueMatches reports whether the runtime value is a subtype of t, without allocating.
func valueMatches(t Type, v Value) bool {
	k := v.Kind()
	switch t.Kind {
	case KindValue:
		return holdsAsValue(k)
	case KindArray:
		if k != KindArray {
			return false
		}
		items := v.Items()
		if t.N >= 0 && t.N != len(items) {
			return false
		}
		if len(items) == 0 {
			return true
		}
		it := t.item()
		if it.Kind == KindValue {
			return true
		}
		return isSubtype(it, typeOfValue(v).item())
	default:
		return k == t.Kind
	}
}

// truthy implements JavaScript's Boolean(x).
func truthy(v Value) bool {
	switch v.Kind() {
	case KindNull:
		return false
	case KindBoolean:
		return v.b
	case KindNumber:
		return v.n != 0 && !math.IsNaN(v.n)
	case KindString:
		return v.s != ""
	}
	return true
}

// toStringValue implements the reference toString of a value.
func toStringValue(v Value) string {
	switch v.Kind() {
	case KindNull:
		return ""
	case KindString:
		return v.s
	case KindNumber:
		return jsNumber(v.n)
	case KindBoolean:
		if v.b {
			return "true"
		}
		return "false"
	case KindColor:
		return v.Color().String()
	case KindFormatted:
		var sb strings.Builder
		for _, s := range v.FormattedText().Sections {
			sb.WriteString(s.Text)
		}
		return sb.String()
	case KindResolvedImage:
		return v.Image().Name
	case KindProjectionDefinition:
		p := v.Projection()
		return `{"from":` + jsonString(p.From) + `,"to":` + jsonString(p.To) + `,"transition":` + jsNumber(p.Transition) + `}`
	}
	var sb strings.Builder
	writeJSON(&sb, v)
	return sb.String()
}

// jsNumber formats a float64 as JavaScript's Number.prototype.toString does.
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
	neg := f < 0
	if neg {
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.dddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1 // value = 0.digits × 10^n
	k := len(digits)
	var s string
	switch {
	case k <= n && n <= 21:
		s = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		s = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		s = "0." + strings.Repeat("0", -n) + digits
	default:
		s = digits[:1]
		if k > 1 {
			s += "." + digits[1:]
		}
		if n-1 >= 0 {
			s += "e+" + strconv.Itoa(n-1)
		} else {
			s += "e-" + strconv.Itoa(1-n)
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// jsToNumber implements JavaScript's Number(x); ok is false for NaN results.
func jsToNumber(v Value) (float64, bool) {
	switch v.Kind() {
	case KindNull:
		return 0, true
	case KindNumber:
		return v.n, !math.IsNaN(v.n)
	case KindBoolean:
		if v.b {
			return 1, true
		}
		return 0, true
	case KindString:
		return jsStringToNumber(v.s)
	case KindArray:
		items := v.Items()
		switch len(items) {
		case 0:
			return 0, true
		case 1:
			if items[0].Kind() == KindArray || items[0].Kind() == KindObject {
				return jsToNumber(String(toStringValue(items[0])))
			}
			return jsStringToNumber(toStringValue(items[0]))
		}
	}
	return math.NaN(), false
}

func jsStringToNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O' || s[1] == 'b' || s[1] == 'B') {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
		u, err := strconv.ParseUint(s[2:], base, 64)
		if err != nil {
			return math.NaN(), false
		}
		return float64(u), true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return math.NaN(), false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return math.NaN(), false
	}
	return f, true
}

// strictEqual implements JavaScript === on expression values.
func strictEqual(a, b Value) bool {
	ka, kb := a.Kind(), b.Kind()
	if ka != kb {
		return false
	}
	switch ka {
	case KindNull:
		return true
	case KindNumber:
		return a.n == b.n
	case KindString:
		return a.s == b.s
	case KindBoolean:
		return a.b == b.b
	}
	// Reference identity for compound values.
	return samePointer(a.p, b.p)
}

func samePointer(a, b any) bool {
	switch x := a.(type) {
	case []Value:
		y, ok := b.([]Value)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	}
	return false
}

// runeLen counts code points.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
