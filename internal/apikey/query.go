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
		part, raw, _ = strings.Cut(raw, "&")
		if strings.Contains(part, ";") {
			continue // net/url refuses such pairs too
		}
		name, value, _ := strings.Cut(part, "=")
		if name != "key" {
			if !strings.ContainsAny(name, "%+") {
				continue
			}
			if n, err := url.QueryUnescape(name); err != nil || n != "key" {
				continue
			}
		}
		if !strings.ContainsAny(value, "%+") {
			return value
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			continue
		}
		return v
	}
	return ""
}
