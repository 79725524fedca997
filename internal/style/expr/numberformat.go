package expr

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

type numberFormatOptions struct {
	locale, currency, unit string
	minFrac, maxFrac       int // -1: unset
}

// separators per language: decimal separator, group separator.
var numberSeparators = map[string][2]string{
	"en": {".", ","}, "ja": {".", ","}, "zh": {".", ","}, "ko": {".", ","}, "he": {".", ","}, "th": {".", ","},
	"hi": {".", ","}, "ga": {".", ","}, "mt": {".", ","}, "ms": {".", ","}, "fil": {".", ","},
	"de": {",", "."}, "es": {",", "."}, "it": {",", "."}, "nl": {",", "."}, "pt": {",", "."}, "id": {",", "."},
	"tr": {",", "."}, "da": {",", "."}, "el": {",", "."}, "ro": {",", "."}, "hr": {",", "."}, "sl": {",", "."},
	"sr": {",", "."}, "vi": {",", "."},
	"fr": {",", "\u202f"}, "ru": {",", "\u00a0"}, "sv": {",", "\u00a0"}, "fi": {",", "\u00a0"}, "nb": {",", "\u00a0"},
	"no": {",", "\u00a0"}, "pl": {",", "\u00a0"}, "cs": {",", "\u00a0"}, "uk": {",", "\u00a0"}, "sk": {",", "\u00a0"},
	"hu": {",", "\u00a0"}, "bg": {",", "\u00a0"}, "lt": {",", "\u00a0"}, "lv": {",", "\u00a0"}, "et": {",", "\u00a0"},
}

// currencyDigits lists ISO 4217 minor units that differ from 2.
var currencyDigits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
	"UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
}

// currencySymbols are the English narrow-enough symbols; other codes print as "XXX ".
var currencySymbols = map[string]string{
	"USD": "$", "EUR": "€", "JPY": "¥", "GBP": "£", "CNY": "CN¥", "KRW": "₩", "INR": "₹", "ILS": "₪",
	"CAD": "CA$", "AUD": "A$", "NZD": "NZ$", "HKD": "HK$", "MXN": "MX$", "BRL": "R$", "TWD": "NT$",
	"VND": "₫", "XAF": "FCFA", "XOF": "F\u202fCFA", "PHP": "₱",
}

// unitSymbols are short unit forms (symbol, whether a space separates it).
var unitSymbols = map[string]struct {
	sym   string
	space bool
}{
	"meter": {"m", true}, "kilometer": {"km", true}, "centimeter": {"cm", true}, "millimeter": {"mm", true},
	"mile": {"mi", true}, "foot": {"ft", true}, "inch": {"in", true}, "yard": {"yd", true},
	"celsius": {"°C", false}, "fahrenheit": {"°F", false}, "degree": {"deg", true}, "percent": {"%", false},
	"kilobyte": {"kB", true}, "megabyte": {"MB", true}, "gigabyte": {"GB", true}, "byte": {"byte", true},
	"kilogram": {"kg", true}, "gram": {"g", true}, "pound": {"lb", true}, "liter": {"L", true},
	"second": {"sec", true}, "minute": {"min", true}, "hour": {"hr", true}, "day": {"day", true},
	"kilometer-per-hour": {"km/h", true}, "mile-per-hour": {"mph", true}, "meter-per-second": {"m/s", true},
	"hectare": {"ha", true}, "acre": {"ac", true},
}

// formatNumber formats a number like Intl.NumberFormat with the decimal,
// currency or unit style. Locale data is limited to separators per language;
// currency symbols and unit names are English.
func formatNumber(x float64, o numberFormatOptions) (string, error) {
	lang := "en"
	if o.locale != "" {
		if t, err := language.Parse(o.locale); err == nil {
			b, _ := t.Base()
			if _, ok := numberSeparators[b.String()]; ok {
				lang = b.String()
			}
		}
	}
	sep := numberSeparators[lang]
	defMin, defMax := 0, 3
	cur := strings.ToUpper(o.currency)
	if cur != "" {
		if len(cur) != 3 {
			return "", errors.New("Invalid currency code : " + o.currency)
		}
		d, ok := currencyDigits[cur]
		if !ok {
			d = 2
		}
		defMin, defMax = d, d
	}
	minF, maxF := defMin, defMax
	switch {
	case o.minFrac >= 0 && o.maxFrac >= 0:
		minF, maxF = o.minFrac, o.maxFrac
		if minF > maxF {
			return "", errors.New("maximumFractionDigits value is out of range.")
		}
	case o.minFrac >= 0:
		minF = o.minFrac
		if maxF < minF {
			maxF = minF
		}
	case o.maxFrac >= 0:
		maxF = o.maxFrac
		if minF > maxF {
			minF = maxF
		}
	}
	var num string
	neg := x < 0 || (x == 0 && math.Signbit(x))
	switch {
	case math.IsNaN(x):
		num, neg = "NaN", false
	case math.IsInf(x, 0):
		num = "∞"
	default:
		num = formatDecimal(math.Abs(x), minF, maxF, sep[0], sep[1])
	}
	sign := ""
	if neg && num != "NaN" {
		sign = "-"
	}
	switch {
	case cur != "":
		sym, ok := currencySymbols[cur]
		if !ok {
			sym = cur + "\u00a0"
		}
		if lang == "en" || lang == "ja" || lang == "zh" || lang == "ko" || lang == "he" || lang == "th" || lang == "hi" {
			return sign + sym + num, nil
		}
		return sign + num + "\u00a0" + strings.TrimSuffix(sym, "\u00a0"), nil
	case o.unit != "":
		u, ok := unitSymbols[o.unit]
		if !ok {
			return "", errors.New("Invalid unit argument for Intl.NumberFormat() '" + o.unit + "'")
		}
		if u.space {
			return sign + num + " " + u.sym, nil
		}
		return sign + num + u.sym, nil
	}
	return sign + num, nil
}

// formatDecimal rounds the shortest decimal representation of x (x >= 0) to
// maxF fraction digits (half away from zero), keeps at least minF, and groups
// the integer part by thousands.
func formatDecimal(x float64, minF, maxF int, dec, group string) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) > maxF {
		roundUp := frac[maxF] >= '5'
		frac = frac[:maxF]
		if roundUp {
			digits := []byte(intPart + frac)
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			}
			intPart = string(digits[:len(digits)-len(frac)])
			frac = string(digits[len(digits)-len(frac):])
		}
	}
	frac = strings.TrimRight(frac, "0")
	for len(frac) < minF {
		frac += "0"
	}
	var sb strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			sb.WriteString(group)
		}
		sb.WriteRune(r)
	}
	if frac != "" {
		sb.WriteString(dec)
		sb.WriteString(frac)
	}
	return sb.String()
}
