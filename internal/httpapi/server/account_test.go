package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// serviceToken creates a service token through the admin API and returns
// its secret.
func (e *testEnv) serviceToken(name string) string {
	e.t.Helper()
	r := e.admin("POST", "/tokens", map[string]any{"name": name})
	if r.status != 201 {
		e.t.Fatalf("create token: %d %s", r.status, r.body)
	}
	tok := decodeJSON[struct{ ID, Name, Token string }](e.t, r.body)
	if tok.ID == "" || tok.Name != name || tok.Token == "" {
		e.t.Fatalf("created token %s", r.body)
	}
	return tok.Token
}

// account sends a request to the account API with a service token.
func (e *testEnv) account(method, path, secret string, body any) resp {
	e.t.Helper()
	var r *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	} else {
		r = strings.NewReader("")
	}
	return e.do(method, "/v1"+path, r, "Authorization", "Token "+secret, "Content-Type", "application/json")
}

func isMessage(b []byte) bool {
	var m struct{ Message string }
	return json.Unmarshal(b, &m) == nil && m.Message != ""
}

func TestServiceTokens(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.serviceToken("ci")
	other := e.serviceToken("other")

	// Without a valid token the account API answers 401 with a message,
	// for known and unknown paths alike.
	for _, h := range [][]string{nil, {"Authorization", "Token nope"}, {"Authorization", "Basic " + token}, {"Authorization", "Bearer " + secret}} {
		r := e.do("GET", "/v1/tiles", nil, h...)
		if r.status != 401 || !isMessage(r.body) {
			t.Errorf("%v: %d %s, want 401 with a message", h, r.status, r.body)
		}
	}
	// With one, an unknown path is 404 (not 401).
	if r := e.account("GET", "/no-such-thing", secret, nil); r.status != 404 || !isMessage(r.body) {
		t.Errorf("unknown account path: %d %s", r.status, r.body)
	}
	// A service token cannot reach the admin API.
	for _, p := range []string{"/v1/admin/tiles", "/v1/admin/tokens"} {
		if r := e.do("GET", p, nil, "Authorization", "Token "+secret); r.status != 401 {
			t.Errorf("service token on %s: %d, want 401", p, r.status)
		}
	}
	// The admin API still answers under /v1/admin/ with its credentials.
	if r := e.admin("GET", "/tiles", nil); r.status != 200 {
		t.Errorf("admin tiles: %d %s", r.status, r.body)
	}

	// The list shows no secrets.
	r := e.admin("GET", "/tokens", nil)
	if r.status != 200 || strings.Contains(string(r.body), secret) || strings.Contains(string(r.body), other) {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	list := decodeJSON[struct {
		Items []struct{ ID, Name, Created, Token string }
	}](t, r.body)
	if len(list.Items) != 2 || list.Items[0].Name != "ci" || list.Items[0].Created == "" {
		t.Fatalf("list: %s", r.body)
	}

	// Revoking one stops it at once; the other keeps working.
	if r := e.admin("DELETE", "/tokens/"+list.Items[0].ID, nil); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := e.admin("DELETE", "/tokens/"+list.Items[0].ID, nil); r.status != 404 || !isMessage(r.body) {
		t.Errorf("revoke twice: %d %s", r.status, r.body)
	}
	if r := e.account("GET", "/no-such-thing", secret, nil); r.status != 401 {
		t.Errorf("revoked token: %d, want 401", r.status)
	}
	if r := e.account("GET", "/no-such-thing", other, nil); r.status != 404 {
		t.Errorf("other token after a revoke: %d, want 404", r.status)
	}

	// Bad bodies are 400.
	for _, body := range []string{`[]`, `{"name": 3}`, `{"nom": "x"}`, `{"name": "` + strings.Repeat("x", 300) + `"}`, `{} {}`} {
		r := e.do("POST", "/v1/admin/tokens", strings.NewReader(body), "Authorization", "Basic "+token)
		if r.status != 400 || !isMessage(r.body) {
			t.Errorf("create with %.40s: %d %s", body, r.status, r.body)
		}
	}
	// No body: a generated name.
	r = e.do("POST", "/v1/admin/tokens", nil, "Authorization", "Basic "+token)
	if tok := decodeJSON[struct{ Name, Token string }](t, r.body); r.status != 201 || !strings.HasPrefix(tok.Name, "token-") || tok.Token == "" {
		t.Errorf("create without body: %d %s", r.status, r.body)
	}
}
