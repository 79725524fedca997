package expr

import "testing"

func TestFormatSections(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`["format", "a", {"font-scale": 2}, "b"]`, `{"sections":[{"text":"a","image":null,"scale":2,"fontStack":null,"textColor":null,"verticalAlign":null},{"text":"b","image":null,"scale":null,"fontStack":null,"textColor":null,"verticalAlign":null}]}`},
		{`["format", "a", {"text-font": ["literal", ["X", "Y"]], "font-scale": 0}]`, `{"sections":[{"text":"a","image":null,"scale":null,"fontStack":"X,Y","textColor":null,"verticalAlign":null}]}`},
		{`["format", {"font-scale": 2}]`, `First argument must be an image or text section.`},
		{`["format", "a", {}, {}]`, `Bare objects invalid. Use ["literal", {...}] instead.`},
		{`["format", "a", {"vertical-align": "middle"}]`, `'vertical-align' must be one of: 'bottom', 'center', 'top' but found 'middle' instead.`},
		{`["format", 1]`, `Formatted text type must be 'string', 'value', 'image' or 'null'.`},
	}
	for _, tt := range tests {
		if got := outcomeOf(tt.expr); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.expr, got, tt.want)
		}
	}
}
