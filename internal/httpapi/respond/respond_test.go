package respond

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
