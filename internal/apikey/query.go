package apikey

import (
	"net/url"
	"strings"
)

// FromQuery returns the first value of the "key" parameter of a raw URL
// query ("" when absent), without building the whole query's map (the key
// is read on every tile request). Pairs that net/url refuses (bad escapes,
// semicolons) are skipped as net/url skips them.
func FromQuery(raw string) string {
	for raw != "" {
		var part string
		if i := strings.IndexByte(raw, '&'); i >= 0 {
			part, raw = raw[:i], raw[i+1:]
		} else {
			part, raw = raw, ""
		}
		// The common case, "key=" and a plain value, without a scan for
		// escapes per character class (this runs on every tile request).
		escaped := false
		for i := 0; i < len(part); i++ {
			switch part[i] {
			case ';':
				escaped = true
				i = len(part)
			case '%', '+':
				escaped = true
			}
		}
		if !escaped {
			if len(part) >= 4 && part[:4] == "key=" {
				return part[4:]
			}
			if part == "key" {
				return ""
			}
			continue
		}
		if strings.IndexByte(part, ';') >= 0 {
			continue // net/url refuses such pairs too
		}
		name, value, _ := strings.Cut(part, "=")
		n, err := url.QueryUnescape(name)
		if err != nil || n != "key" {
			continue
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			continue
		}
		return v
	}
	return ""
}
