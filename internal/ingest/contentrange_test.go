package ingest

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		in                string
		start, end, total int64
		ok                bool
	}{
		{"bytes 0-99/1000", 0, 99, 1000, true},
		{"bytes 900-999/1000", 900, 999, 1000, true},
		{"bytes 0-0/*", 0, 0, -1, true},
		{" bytes 5-9/10 ", 5, 9, 10, true},
		{"bytes 10-9/100", 0, 0, 0, false},
		{"bytes 0-99/99", 0, 0, 0, false},
		{"bytes=0-99/1000", 0, 0, 0, false},
		{"bytes -1-99/1000", 0, 0, 0, false},
		{"bytes 0-99", 0, 0, 0, false},
		{"bytes a-b/c", 0, 0, 0, false},
		{"items 0-9/10", 0, 0, 0, false},
		{"bytes 0-99999999999999999999/1", 0, 0, 0, false},
		{"bytes 90-139/100", 0, 0, 0, false},
		{"bytes 0-0/0", 0, 0, 0, false},
	}
	for _, tt := range tests {
		r, err := ParseContentRange(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%q: err = %v", tt.in, err)
			continue
		}
		if tt.in == "bytes 90-139/100" && !strings.Contains(err.Error(), "ends at byte 139, past the total of 100 bytes") {
			t.Errorf("%q: the message %q does not say the range ends past the total", tt.in, err)
		}
		if tt.ok && (r.Start != tt.start || r.End != tt.end || r.Total != tt.total) {
			t.Errorf("%q = %+v", tt.in, r)
		}
	}
}

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-99/1000", "bytes 0-0/*", "bytes 10-9/100", "bytes=1-2/3", "", "bytes 90-139/100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseContentRange(s)
		if err != nil {
			return
		}
		if r.Start < 0 || r.End < r.Start || (r.Total != -1 && r.Total <= r.End) {
			t.Fatalf("%q accepted as %+v", s, r)
		}
		back := fmt.Sprintf("bytes %d-%d/%d", r.Start, r.End, r.Total)
		if r.Total == -1 {
			back = fmt.Sprintf("bytes %d-%d/*", r.Start, r.End)
		}
		if r2, err := ParseContentRange(back); err != nil || r2 != r {
			t.Fatalf("round trip %q: %+v %v", back, r2, err)
		}
	})
}
