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

var valueMemberKinds = []TypeKind{KindNull, KindNumber, KindString, KindBoolean, KindColor,
	KindProjectionDefinition, KindFormatted, KindObject, KindArray, KindPadding, KindNumberArray,
	KindColorArray, KindResolvedImage, KindVariableAnchorOffsetCollection}

// isSubtype reports whether t may be used where expected is required.
func isSubtype(expected, t Type) bool {
	if t.Kind == KindError {
		return true
	}
	switch {
	case expected.Kind == KindArray:
		if t.Kind == KindArray {
			ti := t.item()
			if ((t.N == 0 && ti.Kind == KindValue) || isSubtype(expected.item(), ti)) && (expected.N < 0 || expected.N == t.N) {
				return true
			}
		}
		return false
	case expected.Kind == t.Kind:
		return true
	case expected.Kind == KindValue:
		for _, k := range valueMemberKinds {
			if k == KindArray {
				if t.Kind == KindArray && isSubtype(ArrayOf(ValueType, -1), t) {
					return true
				}
				continue
			}
			if k == t.Kind {
				return true
			}
		}
	}
	return false
}

// subtypeError returns the reference error message for a failed subtype check, or "".
func subtypeError(expected, t Type) string {
	if isSubtype(expected, t) {
		return ""
	}
	return "Expected " + expected.String() + " but found " + t.String() + " instead."
}
