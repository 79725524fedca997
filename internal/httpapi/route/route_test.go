package route

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTable(t *testing.T) {
	tab := New()
	ok := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok " + r.PathValue("id"))) }
	tab.HandleFunc("GET /things/{id}", ok)
	tab.HandleFunc("DELETE /things/{id}", ok)
	tab.HandleFunc("PUT /admin/upload/{id}", ok)
	outer := New()
	outer.HandleFunc("GET /other/{id}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("outer " + r.PathValue("id"))) })
	inner := New()
	inner.HandleFunc("GET /admin/list", ok)
	tab.Mount("/", outer) // shorter: the longer /admin/ wins under it, whatever the order
	tab.Mount("/admin/", inner)
	if got := tab.Patterns(); len(got) != 3 || got[0] != "GET /things/{id}" {
		t.Errorf("patterns %q", got)
	}
	tests := []struct {
		method, path string
		status       int
		allow, body  string
	}{
		{"GET", "/things/a", 200, "", "ok a"},
		{"HEAD", "/things/a", 200, "", ""},
		{"POST", "/things/a", 405, "DELETE, GET, HEAD", ""},
		{"GET", "/nothing", 404, "", ""},
		{"GET", "/admin/list", 200, "", "ok "},
		{"POST", "/admin/list", 405, "GET, HEAD", ""},
		{"GET", "/admin/upload/x", 405, "PUT", ""}, // the outer table knows the path
		{"GET", "/admin/other", 404, "", ""},
		{"GET", "/other/b", 200, "", "outer b"},
		{"GET", "/nothing/else", 404, "", ""},
	}
	for _, tc := range tests {
		w := httptest.NewRecorder()
		tab.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.status || w.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q, want %d %q", tc.method, tc.path, w.Code, w.Header().Get("Allow"), tc.status, tc.allow)
		}
		if tc.status >= 400 {
			var m struct{ Message string }
			if json.Unmarshal(w.Body.Bytes(), &m) != nil || m.Message == "" {
				t.Errorf("%s %s: body %q", tc.method, tc.path, w.Body)
			}
		} else if tc.body != "" && w.Body.String() != tc.body {
			t.Errorf("%s %s: body %q", tc.method, tc.path, w.Body)
		}
	}
	if m, p := Methods("GET /a/{b}"); m != "GET" || p != "/a/{b}" {
		t.Errorf("Methods: %q %q", m, p)
	}
}
