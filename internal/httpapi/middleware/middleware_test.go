package middleware

import (
	"bytes"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}), Recover(log), RequestID)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/x", nil))
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"message"`) {
		t.Errorf("panic answered %d %q", w.Code, w.Body.String())
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "stack") {
		t.Errorf("panic not logged with its stack: %s", logs.String())
	}
	// The server keeps answering.
	w = httptest.NewRecorder()
	Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }), Recover(log)).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 204 {
		t.Errorf("after a panic: %d", w.Code)
	}
}

func TestRequestID(t *testing.T) {
	var seen string
	h := RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = RequestIDFrom(r.Context()) }))
	tests := []struct {
		given string
		keep  bool
	}{{"abc-123", true}, {"", false}, {"bad id with spaces", false}, {strings.Repeat("a", 65), false}}
	ids := map[string]bool{}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.given != "" {
			r.Header.Set("X-Request-Id", tt.given)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		got := w.Header().Get("X-Request-Id")
		if got == "" || got != seen || (tt.keep && got != tt.given) || (!tt.keep && got == tt.given) {
			t.Errorf("given %q: header %q, context %q", tt.given, got, seen)
		}
		if ids[got] {
			t.Errorf("id %q repeated", got)
		}
		ids[got] = true
	}
}

func TestCORS(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	tests := []struct {
		origins []string
		origin  string
		want    string
	}{
		{[]string{"*"}, "https://a.example", "*"},
		{[]string{"https://a.example"}, "https://a.example", "https://a.example"},
		{[]string{"https://a.example"}, "https://b.example", ""},
		{[]string{"*"}, "", ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		w := httptest.NewRecorder()
		CORS(tt.origins)(ok).ServeHTTP(w, r)
		if got := w.Header().Get("Access-Control-Allow-Origin"); got != tt.want {
			t.Errorf("%v from %q: %q, want %q", tt.origins, tt.origin, got, tt.want)
		}
	}
	r := httptest.NewRequest("OPTIONS", "/v1/admin/tiles", nil)
	r.Header.Set("Origin", "https://a.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	w := httptest.NewRecorder()
	CORS([]string{"*"})(ok).ServeHTTP(w, r)
	if w.Code != 204 || !strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", w.Code, w.Header())
	}
}

func TestCheckBasic(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"Basic secret", "secret", true},
		{"basic secret", "secret", true},
		{"Basic " + b64("admin:secret"), "secret", true},
		{"Basic " + b64("admin:secret"), "admin:secret", true},
		{"Basic " + b64("admin:wrong"), "secret", false},
		{"Basic secre", "secret", false},
		{"Bearer secret", "secret", false},
		{"Basic ", "secret", false},
		{"Basic secret", "", false},
		{"", "secret", false},
	}
	for _, tt := range tests {
		if got := CheckBasic(tt.header, tt.token); got != tt.ok {
			t.Errorf("CheckBasic(%q, %q) = %v", tt.header, tt.token, got)
		}
	}
}

func TestLimits(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf [64]byte
		n, err := r.Body.Read(buf[:])
		for err == nil {
			var m int
			m, err = r.Body.Read(buf[:])
			n += m
		}
		if _, isMax := err.(*http.MaxBytesError); isMax {
			w.WriteHeader(413)
			return
		}
		w.WriteHeader(200)
	})
	h := Limits(300, 10)(ok)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/"+strings.Repeat("a", 400), nil))
	if w.Code != 414 {
		t.Errorf("long URI: %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/x", strings.NewReader(strings.Repeat("b", 100))))
	if w.Code != 413 {
		t.Errorf("large body: %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("PUT", "/v1/admin/tiles/ingest/x/upload", strings.NewReader(strings.Repeat("b", 100))))
	if w.Code != 200 {
		t.Errorf("upload body limited: %d", w.Code)
	}
}

func TestNewID(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{1, idPrefix + "-1"}, {35, idPrefix + "-z"}, {36, idPrefix + "-10"}, {1<<64 - 1, idPrefix + "-3w5e11264sgsf"}} {
		if got := newID(c.n); got != c.want {
			t.Errorf("newID(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if len(idPrefix) != 8 {
		t.Errorf("prefix %q", idPrefix)
	}
}
