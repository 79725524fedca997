package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tesseramaps/tessera/internal/caller"
)

func TestServiceToken(t *testing.T) {
	check := func(_ context.Context, secret string) (string, bool, error) {
		switch secret {
		case "good":
			return "id-1", true, nil
		case "broken":
			return "", false, errors.New("database down")
		}
		return "", false, nil
	}
	h := ServiceToken(check, slog.New(slog.DiscardHandler))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(caller.From(r.Context()).TokenID))
	}))
	for _, tc := range []struct {
		header string
		status int
		body   string
	}{
		{"Token good", 200, "id-1"},
		{"token good", 200, "id-1"},
		{"TOKEN   good  ", 200, "id-1"},
		{"Token bad", 401, ""},
		{"Token ", 401, ""},
		{"Bearer good", 401, ""},
		{"Basic good", 401, ""},
		{"good", 401, ""},
		{"", 401, ""},
		{"Token broken", 503, ""},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/v1/tiles", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		h.ServeHTTP(w, r)
		if w.Code != tc.status {
			t.Errorf("%q: status %d, want %d", tc.header, w.Code, tc.status)
			continue
		}
		if tc.status == 200 {
			if w.Body.String() != tc.body {
				t.Errorf("%q: caller token id %q, want %q", tc.header, w.Body, tc.body)
			}
			continue
		}
		var m struct{ Message string }
		if json.Unmarshal(w.Body.Bytes(), &m) != nil || m.Message == "" {
			t.Errorf("%q: body %q is not a JSON message", tc.header, w.Body)
		}
		if tc.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%q: no WWW-Authenticate", tc.header)
		}
	}
}
