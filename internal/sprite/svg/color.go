package svg

import (
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/csscolor"
)

// rgba is a non-premultiplied colour with components in [0,1].
type rgba struct{ r, g, b, a float64 }

// parseColor parses a CSS colour value (csscolor.Parse: hex, rgb(), rgba(),
// hsl(), hsla(), named colours and "transparent").
func parseColor(s string) (rgba, bool) {
	r, g, b, a, ok := csscolor.Parse(s)
	return rgba{r, g, b, a}, ok
}

func clamp01(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	if f > 1 {
		return 1
	}
	return f
}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if !finite(f) {
		return 0, strconv.ErrRange
	}
	return f, nil
}
