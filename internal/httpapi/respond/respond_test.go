package respond

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBaseURL(t *testing.T) {
	tests := []struct {
		name    string
		public  string
		host    string
		headers map[string]string
		want    string
	}{
		{"configured wins", "https://maps.example.com/", "x:1", map[string]string{"X-Forwarded-Host": "evil"}, "https://maps.example.com"},
		{"host header", "", "127.0.0.1:8080", nil, "http://127.0.0.1:8080"},
		{"forwarded", "", "backend:8080", map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "maps.example.org"}, "https://maps.example.org"},
		{"forwarded list", "", "b", map[string]string{"X-Forwarded-Proto": "https, http", "X-Forwarded-Host": "a.example, b.example"}, "https://a.example"},
		{"hostile host", "", "b", map[string]string{"X-Forwarded-Host": "evil.example/<script>"}, "http://b"},
		{"bad proto", "", "b", map[string]string{"X-Forwarded-Proto": "javascript"}, "http://b"},
		{"prefix", "", "b", map[string]string{"X-Forwarded-Prefix": "/tessera/"}, "http://b/tessera"},
		{"bad prefix", "", "b", map[string]string{"X-Forwarded-Prefix": "//evil.example"}, "http://b"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tt.host
		for k, v := range tt.headers {
			r.Header.Set(k, v)
		}
		if got := BaseURL(r, tt.public); got != tt.want {
			t.Errorf("%s: BaseURL = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFail(t *testing.T) {
	w := httptest.NewRecorder()
	w.Header().Set("ETag", `"x"`)
	Fail(w, http.StatusBadRequest, "bad tile address")
	if w.Code != 400 || w.Header().Get("ETag") != "" || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("code %d headers %v", w.Code, w.Header())
	}
	var e Error
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Message != "bad tile address" {
		t.Errorf("body %q: %v", w.Body.String(), err)
	}
}

func TestKeyQuery(t *testing.T) {
	r := httptest.NewRequest("GET", "/x?key=a%20b%26c", nil)
	if got := KeyQuery(r); got != "?key=a%20b%26c" {
		t.Errorf("KeyQuery = %q", got)
	}
	if got := KeyQuery(httptest.NewRequest("GET", "/x", nil)); got != "" {
		t.Errorf("KeyQuery without key = %q", got)
	}
}

// TestJSONPooled checks JSON writes what json.Marshal does (and a newline)
// with its buffers reused, whatever was written before.
func TestJSONPooled(t *testing.T) {
	values := []any{
		Error{Message: "a <b> & c"},
		map[string]any{"big": strings.Repeat("x", 100000), "n": 1},
		[]int{1, 2, 3},
		struct {
			A *float64 `json:"a"`
			B string   `json:"b,omitempty"`
		}{},
		Error{Message: ""},
	}
	for round := range 3 {
		for _, v := range values {
			w := httptest.NewRecorder()
			JSON(w, http.StatusTeapot, v)
			want, _ := json.Marshal(v)
			if got := w.Body.String(); got != string(want)+"\n" {
				t.Errorf("round %d: JSON(%T) wrote %.80q, want %.80q", round, v, got, want)
			}
			if w.Code != http.StatusTeapot || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("JSON: status %d, content type %q", w.Code, w.Header().Get("Content-Type"))
			}
		}
	}
	// A value that cannot be encoded answers 500 with a message.
	w := httptest.NewRecorder()
	JSON(w, http.StatusOK, map[string]any{"f": func() {}})
	if w.Code != http.StatusInternalServerError || w.Body.String() != `{"message":"could not encode the response"}`+"\n" {
		t.Errorf("unencodable: %d %q", w.Code, w.Body.String())
	}
}

func TestBuffer(t *testing.T) {
	b := Buffer()
	*b = append(*b, "first"...)
	Release(b)
	for range 4 {
		c := Buffer()
		if len(*c) != 0 {
			t.Fatalf("Buffer gave %q, want empty", *c)
		}
		*c = append(*c, "again"...)
		Release(c)
	}
	big := Buffer()
	*big = make([]byte, maxPooled+1)
	Release(big) // left to the collector
	if c := Buffer(); cap(*c) > maxPooled {
		t.Errorf("a buffer of %d bytes came back from the pool", cap(*c))
	}
}
