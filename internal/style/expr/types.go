package expr

import "strconv"

// TypeKind enumerates the kinds of expression types.
type TypeKind uint8

// Type kinds, named as in the style specification.
const (
	KindValue TypeKind = iota
	KindNull
	KindNumber
	KindString
	KindBoolean
	KindColor
	KindObject
	KindArray
	KindCollator
	KindFormatted
	KindResolvedImage
	KindPadding
	KindNumberArray
	KindColorArray
	KindVariableAnchorOffsetCollection
	KindProjectionDefinition
	KindError
)

var kindNames = [...]string{
	KindValue:                          "value",
	KindNull:                           "null",
	KindNumber:                         "number",
	KindString:                         "string",
	KindBoolean:                        "boolean",
	KindColor:                          "color",
	KindObject:                         "object",
	KindArray:                          "array",
	KindCollator:                       "collator",
	KindFormatted:                      "formatted",
	KindResolvedImage:                  "resolvedImage",
	KindPadding:                        "padding",
	KindNumberArray:                    "numberArray",
	KindColorArray:                     "colorArray",
	KindVariableAnchorOffsetCollection: "variableAnchorOffsetCollection",
	KindProjectionDefinition:           "projectionDefinition",
	KindError:                          "error",
}

// String returns the specification name of the kind.
func (k TypeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Type is an expression type. Array types carry an item type and an optional
// fixed length (N < 0 means unspecified).
type Type struct {
	Kind TypeKind
	Item *Type
	N    int
}

// Predefined types.
var (
	ValueType      = Type{Kind: KindValue, N: -1}
	NullType       = Type{Kind: KindNull, N: -1}
	NumberType     = Type{Kind: KindNumber, N: -1}
	StringType     = Type{Kind: KindString, N: -1}
	BooleanType    = Type{Kind: KindBoolean, N: -1}
	ColorType      = Type{Kind: KindColor, N: -1}
	ObjectType     = Type{Kind: KindObject, N: -1}
	CollatorType   = Type{Kind: KindCollator, N: -1}
	FormattedType  = Type{Kind: KindFormatted, N: -1}
	ImageType      = Type{Kind: KindResolvedImage, N: -1}
	PaddingType    = Type{Kind: KindPadding, N: -1}
	NumberArrType  = Type{Kind: KindNumberArray, N: -1}
	ColorArrType   = Type{Kind: KindColorArray, N: -1}
	VAOCType       = Type{Kind: KindVariableAnchorOffsetCollection, N: -1}
	ProjectionType = Type{Kind: KindProjectionDefinition, N: -1}
	ErrorType      = Type{Kind: KindError, N: -1}
)

var (
	itemValue   = ValueType
	itemNumber  = NumberType
	itemString  = StringType
	itemBoolean = BooleanType
)

// ArrayOf returns the array type with the given item type and length (n < 0: any length).
func ArrayOf(item Type, n int) Type {
	it := item
	switch {
	case item.Kind == KindValue && item.Item == nil:
		return Type{Kind: KindArray, Item: &itemValue, N: n}
	case item.Kind == KindNumber:
		return Type{Kind: KindArray, Item: &itemNumber, N: n}
	case item.Kind == KindString:
		return Type{Kind: KindArray, Item: &itemString, N: n}
	case item.Kind == KindBoolean:
		return Type{Kind: KindArray, Item: &itemBoolean, N: n}
	}
	return Type{Kind: KindArray, Item: &it, N: n}
}

// String renders the type as the specification does: "number",
// "array<string, 2>", "array" (array of values of any length).
func (t Type) String() string {
	if t.Kind != KindArray {
		return t.Kind.String()
	}
	item := ValueType
	if t.Item != nil {
		item = *t.Item
	}
	if t.N >= 0 {
		return "array<" + item.String() + ", " + strconv.Itoa(t.N) + ">"
	}
	if item.Kind == KindValue {
		return "array"
	}
	return "array<" + item.String() + ">"
}

func (t Type) item() Type {
	if t.Item == nil {
		return ValueType
	}
	return *t.Item
}

// isSubtype reports whether a t may be used where want is required: an
// error anywhere; an array where an array is, by arrayFits; anything but
// a collator where a value is (an array when its items are values);
// otherwise the same kind.
func isSubtype(want, t Type) bool {
	switch {
	case t.Kind == KindError:
		return true
	case want.Kind == KindArray:
		return t.Kind == KindArray && arrayFits(want, t)
	case want.Kind == KindValue && t.Kind == KindArray:
		return arrayFits(ArrayOf(ValueType, -1), t)
	case want.Kind == KindValue:
		return holdsAsValue(t.Kind)
	}
	return want.Kind == t.Kind
}

// holdsAsValue reports whether "value" holds what has kind k: everything
// but a collator.
func holdsAsValue(k TypeKind) bool { return k != KindCollator }

// arrayFits reports whether the array type t may be used where the array
// type want is required: their lengths agree (when want fixes one), and
// t's items fit want's, or t is the empty array of values.
func arrayFits(want, t Type) bool {
	if want.N >= 0 && want.N != t.N {
		return false
	}
	return t.N == 0 && t.item().Kind == KindValue || isSubtype(want.item(), t.item())
}

// subtypeError returns the reference error message for a failed subtype check, or "".
func subtypeError(expected, t Type) string {
	if isSubtype(expected, t) {
		return ""
	}
	return "Expected " + expected.String() + " but found " + t.String() + " instead."
}
