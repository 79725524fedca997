package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseContentRange reads a Content-Range header of an upload chunk: "bytes START-END/TOTAL" (TOTAL may be "*").
func ParseContentRange(v string) (Range, error) {
	bad := fmt.Errorf("Content-Range %q is not \"bytes START-END/TOTAL\"", v)
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !ok {
		return Range{}, bad
	}
	span, total, ok := strings.Cut(rest, "/")
	if !ok {
		return Range{}, bad
	}
	s, e, ok := strings.Cut(span, "-")
	if !ok {
		return Range{}, bad
	}
	var rg Range
	var err error
	if rg.Start, err = strconv.ParseInt(s, 10, 64); err != nil || rg.Start < 0 {
		return Range{}, bad
	}
	if rg.End, err = strconv.ParseInt(e, 10, 64); err != nil || rg.End < rg.Start {
		return Range{}, bad
	}
	if total == "*" {
		rg.Total = -1
		return rg, nil
	}
	if rg.Total, err = strconv.ParseInt(total, 10, 64); err != nil || rg.Total <= 0 {
		return Range{}, bad
	}
	if rg.End >= rg.Total {
		return Range{}, fmt.Errorf("Content-Range %q ends at byte %d, past the total of %d bytes (the last byte is %d)", v, rg.End, rg.Total, rg.Total-1)
	}
	return rg, nil
}

// RangeHeader reads an upload request's Content-Range header: nil when it
// is empty (the body is the whole file).
func RangeHeader(v string) (*Range, error) {
	if v == "" {
		return nil, nil
	}
	rg, err := ParseContentRange(v)
	if err != nil {
		return nil, err
	}
	return &rg, nil
}
