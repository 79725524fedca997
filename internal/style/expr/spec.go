package expr

import (
	"encoding/json"
	"fmt"
)

// ExpressionSupport says which inputs a property's expressions may use.
type ExpressionSupport struct {
	Interpolated bool     `json:"interpolated"`
	Parameters   []string `json:"parameters"`
}

// PropertySpec describes the style property an expression is compiled for,
// as in the style specification (v8.json) entries.
type PropertySpec struct {
	// Type: number, string, boolean, color, enum, array, formatted, padding,
	// numberArray, colorArray, resolvedImage, variableAnchorOffsetCollection,
	// projectionDefinition (or "" for none).
	Type string
	// Value is the item type of array properties; Length their length (0: any).
	Value  string
	Length int
	// PropertyType: data-driven, data-constant, color-ramp, cross-faded,
	// cross-faded-data-driven, constant.
	PropertyType string
	Expression   *ExpressionSupport
	// Default is the property's default value (raw JSON), if any.
	Default json.RawMessage
	// Tokens reports whether legacy "{token}" strings are expanded.
	Tokens bool
	// Values lists enum values in order.
	Values []string
}

type rawPropertySpec struct {
	Type         string             `json:"type"`
	Value        string             `json:"value"`
	Length       int                `json:"length"`
	PropertyType string             `json:"property-type"`
	Expression   *ExpressionSupport `json:"expression"`
	Default      json.RawMessage    `json:"default"`
	Tokens       bool               `json:"tokens"`
	Values       json.RawMessage    `json:"values"`
}

// UnmarshalJSON reads a v8.json property entry (enum values as an object or array).
func (p *PropertySpec) UnmarshalJSON(data []byte) error {
	var r rawPropertySpec
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("property spec: %w", err)
	}
	*p = PropertySpec{Type: r.Type, Value: r.Value, Length: r.Length, PropertyType: r.PropertyType,
		Expression: r.Expression, Default: r.Default, Tokens: r.Tokens}
	if len(r.Values) > 0 {
		v, err := decodeJSON(r.Values)
		if err != nil {
			return fmt.Errorf("property spec values: %w", err)
		}
		switch t := v.(type) {
		case *jobj:
			p.Values = append(p.Values, t.keys...)
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					p.Values = append(p.Values, s)
				}
			}
		}
	}
	return nil
}

// expectedType returns the expression type the property requires, if any.
func (p *PropertySpec) expectedType() *Type {
	if p == nil {
		return nil
	}
	simple := map[string]Type{
		"color": ColorType, "string": StringType, "number": NumberType, "enum": StringType, "boolean": BooleanType,
		"formatted": FormattedType, "padding": PaddingType, "numberArray": NumberArrType, "colorArray": ColorArrType,
		"resolvedImage": ImageType, "variableAnchorOffsetCollection": VAOCType, "projectionDefinition": ProjectionType,
	}
	if p.Type == "array" {
		item, ok := simple[p.Value]
		if !ok {
			item = ValueType
		}
		n := -1
		if p.Length > 0 {
			n = p.Length
		}
		t := ArrayOf(item, n)
		return &t
	}
	if t, ok := simple[p.Type]; ok {
		return &t
	}
	return nil
}

func (p *PropertySpec) supportsPropertyExpression() bool {
	return p == nil || p.PropertyType == "data-driven" || p.PropertyType == "cross-faded-data-driven"
}

func (p *PropertySpec) supportsZoomExpression() bool {
	if p == nil {
		return true
	}
	if p.Expression == nil {
		return false
	}
	for _, s := range p.Expression.Parameters {
		if s == "zoom" {
			return true
		}
	}
	return false
}

func (p *PropertySpec) supportsInterpolation() bool {
	return p == nil || (p.Expression != nil && p.Expression.Interpolated)
}
