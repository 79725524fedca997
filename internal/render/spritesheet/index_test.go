package spritesheet

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// indexCases are indexes parseIndex reads itself (true) or leaves to
// encoding/json (false).
var indexCases = []struct {
	json string
	fast bool
}{
	{`{}`, true},
	{` { } `, true},
	{`{"a": {"x": 1, "y": 2, "width": 3, "height": 4, "pixelRatio": 2, "sdf": true}}`, true},
	{`{"a":{"X":-1,"Y":0,"WIDTH":30,"Height":4,"pixelratio":1.5e0,"SDF":false},"b":{}}`, true},
	{"{\n\t\"a b\": {\"x\": 1},\r\n \"é\": {\"y\": 2}\n}", true},
	{`{"a": {"x": 1, "x": 2}, "a": {"y": 3}}`, true}, // the last of each wins
	{`{"a": {"x": 1, "content": [2, 4, 20, 16], "stretchX": [[2, 4], [6, 8]], "name": "i\"\u00e9\n", "o": {"p": null, "q": [true, false, -0.5e-3]}}}`, true},
	{`{"a": {"x": 1.5}}`, false},  // encoding/json's error
	{`{"a": {"x": 1e2}}`, false},  // encoding/json's error
	{`{"a": {"x": "1"}}`, false},  // encoding/json's error
	{`{"a": {"x": null}}`, false}, // left as it is
	{`{"a": null}`, false},        // a zero entry
	{`null`, false},               // a nil map
	{`{"a": 1}`, false},           // encoding/json's error
	{`{"a\u0062": {"x": 1}}`, false},
	{`{"a": {"\u0078": 1}}`, false},
	{`{"a": {"ſdf": true}}`, false}, // folds to "sdf"
	{`{"a": {"x": 01}}`, false},
	{`{"a": {"sdf": 1}}`, false},
	{`{"a": {"x": 1},}`, false},
	{`{"a": {"x": 1}} x`, false},
	{`{"a": {"x": 1}`, false},
	{"{\"\xff\": {}}", false}, // invalid UTF-8 becomes U+FFFD
	{`{"a": {"pixelRatio": 1e999}}`, false},
	{`{"a": {"z": [1, 2}}`, false},
	{`{"a": {"z": "\x"}}`, false},
	{`{"a": {"z": tru}}`, false},
	{`{"a": {"x": 9223372036854775808}}`, false},
	{strings.Repeat(`{"a": {"z": `, 1) + strings.Repeat("[", maxSkipDepth+2) + strings.Repeat("]", maxSkipDepth+2) + "}}", false},
}

// TestParseIndex holds parseIndex to encoding/json.
func TestParseIndex(t *testing.T) {
	for _, tc := range indexCases {
		_, fast := parseIndex([]byte(tc.json))
		if fast != tc.fast {
			t.Errorf("%s: read here %v, want %v", tc.json, fast, tc.fast)
		}
		checkIndex(t, []byte(tc.json))
	}
}

// TestParseIndexSprites parses the shared sheets' indexes.
func TestParseIndexSprites(t *testing.T) {
	dir := fixtures.SharedDir()
	if dir == "" {
		t.Skip("../shared is absent")
	}
	n := 0
	for _, sub := range []string{"render-tests", "fixtures"} {
		filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || !strings.Contains(path, "sprite") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := parseIndex(data); ok {
				n++
			}
			checkIndex(t, data)
			return nil
		})
	}
	if n == 0 {
		t.Fatal("no index read")
	}
}

// checkIndex fails unless ParseIndex returns what encoding/json does, and
// parseIndex reads only what encoding/json reads alike.
func checkIndex(t *testing.T, data []byte) {
	t.Helper()
	var want map[string]Entry
	wantErr := json.Unmarshal(data, &want)
	got, err := ParseIndex(data)
	if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: %v, %v; encoding/json: %v, %v", data, got, err, want, wantErr)
	}
	if m, ok := parseIndex(data); ok && (wantErr != nil || !reflect.DeepEqual(m, want)) {
		t.Fatalf("%q: read as %v; encoding/json: %v, %v", data, m, want, wantErr)
	}
}

// FuzzParseIndex: what parseIndex reads, encoding/json reads alike.
func FuzzParseIndex(f *testing.F) {
	for _, tc := range indexCases {
		f.Add([]byte(tc.json))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkIndex(t, data)
	})
}
