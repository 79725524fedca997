package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/config"
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

type accountTileset struct {
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Attribution *string `json:"attribution"`
}

func TestAccountTiles(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.serviceToken("acct")

	// Every tileset, ten to a page; the ids are the admin API's.
	type list struct {
		Cursor *string          `json:"cursor"`
		Items  []accountTileset `json:"items"`
	}
	r := e.account("GET", "/tiles", tok, nil)
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	all := decodeJSON[list](t, r.body)
	if all.Cursor != nil || len(all.Items) != len(e.srv.Catalog.List()) || len(all.Items) < 3 {
		t.Fatalf("list: %s", r.body)
	}
	if !strings.Contains(string(r.body), `"attribution":null`) {
		t.Errorf("attribution of an untouched tileset is not null: %s", r.body)
	}
	for _, q := range []string{"limit=9", "limit=101", "limit=x", "limit=", "cursor=@@", "cursor=" + "eHl6"} {
		if r := e.account("GET", "/tiles?"+q, tok, nil); (r.status != 400 || !isMessage(r.body)) && q != "limit=" {
			t.Errorf("list ?%s: %d %s", q, r.status, r.body)
		}
	}

	roads, _ := e.srv.Catalog.Get("roads")
	id := roads.ID
	r = e.account("GET", "/tiles/"+id, tok, nil)
	if got := decodeJSON[accountTileset](t, r.body); r.status != 200 || got.ID != id || got.Attribution != nil {
		t.Errorf("get: %d %s", r.status, r.body)
	}
	if r := e.account("GET", "/tiles/not-a-uuid", tok, nil); r.status != 400 || !isMessage(r.body) {
		t.Errorf("get bad id: %d %s", r.status, r.body)
	}
	if r := e.account("GET", "/tiles/00000000-0000-4000-8000-000000000000", tok, nil); r.status != 404 || !isMessage(r.body) {
		t.Errorf("get unknown id: %d %s", r.status, r.body)
	}

	// change_metadata: all three strings required.
	for _, body := range []string{`{}`, `{"title": "a", "description": "b"}`, `{"title": "a", "description": "b", "attribution": null}`,
		`{"title": 1, "description": "b", "attribution": "c"}`, `{"title": "a", "description": "b", "attribution": "c", "x": 1}`,
		`{"title": "a\nb", "description": "b", "attribution": "c"}`, `{"title": "` + strings.Repeat("t", 201) + `", "description": "b", "attribution": "c"}`, `[]`, ``} {
		r := e.do("POST", "/v1/tiles/"+id+"/change_metadata", strings.NewReader(body), "Authorization", "Token "+tok)
		if r.status != 400 || !isMessage(r.body) {
			t.Errorf("change_metadata %.60s: %d %s", body, r.status, r.body)
		}
	}
	r = e.account("POST", "/tiles/"+id+"/change_metadata", tok, map[string]string{"title": "Roads", "description": "Main roads", "attribution": "© test"})
	got := decodeJSON[accountTileset](t, r.body)
	if r.status != 200 || got.Title != "Roads" || got.Description != "Main roads" || got.Attribution == nil || *got.Attribution != "© test" {
		t.Fatalf("change_metadata: %d %s", r.status, r.body)
	}
	if a := e.admin("GET", "/tiles/"+id, nil); !strings.Contains(string(a.body), `"title":"Roads"`) {
		t.Errorf("admin API does not see the title: %s", a.body)
	}

	// DELETE: 200 without a body, the file gone, then 410 for the id.
	r = e.account("DELETE", "/tiles/"+id, tok, nil)
	if r.status != 200 || len(r.body) != 0 {
		t.Fatalf("delete: %d %q", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "tiles", "roads.mbtiles")); !os.IsNotExist(err) {
		t.Errorf("file still there: %v", err)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if r := e.account(m, "/tiles/"+id, tok, nil); r.status != 410 || !isMessage(r.body) {
			t.Errorf("%s after delete: %d %s", m, r.status, r.body)
		}
	}
	if r := e.account("POST", "/tiles/"+id+"/change_metadata", tok, map[string]string{"title": "a", "description": "b", "attribution": "c"}); r.status != 410 {
		t.Errorf("change after delete: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/tiles/roads/0/0/0.pbf", nil); r.status != 404 {
		t.Errorf("public tile after delete: %d", r.status)
	}
}

// TestAccountTilesPages pages with limit 10 over more tilesets than that,
// deleting and adding between pages.
func TestAccountTilesPages(t *testing.T) {
	e := newEnv(t, nil)
	tok := e.serviceToken("pages")
	for i := range 12 {
		writeRaster(t, filepath.Join(e.dir, "tiles", fmt.Sprintf("extra%02d.mbtiles", i)))
		if _, err := e.srv.Catalog.Rescan(context.Background()); err != nil { // one at a time: creation order
			t.Fatal(err)
		}
	}
	total := len(e.srv.Catalog.List())
	seen := map[string]int{}
	var order []string
	cursor := ""
	deleted := ""
	for page := 0; page < 10; page++ {
		path := "/tiles?limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := e.account("GET", path, tok, nil)
		if r.status != 200 {
			t.Fatalf("page %d: %d %s", page, r.status, r.body)
		}
		l := decodeJSON[struct {
			Cursor *string
			Items  []accountTileset
		}](t, r.body)
		for _, it := range l.Items {
			seen[it.ID]++
			order = append(order, it.ID)
		}
		if l.Cursor == nil {
			break
		}
		cursor = *l.Cursor
		if page == 0 {
			// Delete one already seen, add one: nothing skipped or repeated.
			deleted = l.Items[0].ID
			if r := e.account("DELETE", "/tiles/"+deleted, tok, nil); r.status != 200 {
				t.Fatalf("delete: %d", r.status)
			}
			writeRaster(t, filepath.Join(e.dir, "tiles", "late.mbtiles"))
			e.srv.Catalog.Rescan(context.Background())
		}
	}
	if len(order) != total+1 {
		t.Errorf("saw %d items, want %d (every tileset once plus the late one)", len(order), total+1)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s seen %d times", id, n)
		}
	}
	late, _ := e.srv.Catalog.Get("late")
	if late == nil || order[len(order)-1] != late.ID {
		t.Errorf("the late tileset is not last")
	}
}

// accountKey is a key as the account API shows it.
type accountKey = apikey.Key

func TestAccountAPIKeys(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	tok := e.serviceToken("keys")
	r := e.account("POST", "/api_keys", tok, nil)
	k := decodeJSON[accountKey](t, r.body)
	if r.status != 200 || k.ID == "" || k.Token == "" || !strings.HasPrefix(k.Name, "key-") || k.Description != nil || k.UserAgent != nil || k.Origins == nil {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	for _, ts := range []string{k.Created, k.Changed} {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("timestamp %q: %v", ts, err)
		}
	}
	// The key works on the public API at once.
	if r := e.do("GET", "/tiles/roads/0/0/0.pbf?key="+k.Token, nil); r.status != 200 {
		t.Errorf("tile with the new key: %d %s", r.status, r.body)
	}
	r = e.account("POST", "/api_keys", tok, map[string]any{"name": "site", "description": "web", "origins": []string{"example.com", "*.example.org", "?"}, "user_agent": "Mozilla"})
	site := decodeJSON[accountKey](t, r.body)
	if r.status != 200 || site.Name != "site" || len(site.Origins) != 3 || *site.UserAgent != "Mozilla" {
		t.Fatalf("create site: %d %s", r.status, r.body)
	}
	for _, body := range []string{`{"origins": ["a b"]}`, `{"origins": "x"}`, `{"name": 5}`, `{"user_agent": "a\u0000"}`, `{"extra": 1}`, `[1]`} {
		r := e.do("POST", "/v1/api_keys", strings.NewReader(body), "Authorization", "Token "+tok)
		if r.status != 400 || !isMessage(r.body) {
			t.Errorf("create %s: %d %s", body, r.status, r.body)
		}
	}
	if r := e.account("GET", "/api_keys/"+site.ID, tok, nil); decodeJSON[accountKey](t, r.body).Token != site.Token {
		t.Errorf("get: %d %s", r.status, r.body)
	}
	if r := e.account("GET", "/api_keys/nope", tok, nil); r.status != 400 {
		t.Errorf("get bad id: %d", r.status)
	}
	if r := e.account("GET", "/api_keys/00000000-0000-4000-8000-000000000000", tok, nil); r.status != 404 || !isMessage(r.body) {
		t.Errorf("get unknown: %d %s", r.status, r.body)
	}

	// change_settings: absent fields stay, null clears.
	r = e.account("POST", "/api_keys/"+site.ID+"/change_settings", tok, map[string]any{"user_agent": nil, "origins": []string{"example.com"}})
	ch := decodeJSON[accountKey](t, r.body)
	if r.status != 200 || ch.UserAgent != nil || ch.Name != "site" || *ch.Description != "web" || len(ch.Origins) != 1 || ch.Changed < site.Changed {
		t.Errorf("change: %d %s", r.status, r.body)
	}
	if r := e.do("POST", "/v1/api_keys/"+site.ID+"/change_settings", strings.NewReader(""), "Authorization", "Token "+tok); r.status != 400 {
		t.Errorf("change without a body: %d", r.status)
	}
	// The change applies to the public API at once.
	if r := e.do("GET", "/tiles/roads/0/0/0.pbf?key="+site.Token, nil); r.status != 403 {
		t.Errorf("tile without origin after restricting: %d", r.status)
	}
	if r := e.do("GET", "/tiles/roads/0/0/0.pbf?key="+site.Token, nil, "Origin", "https://example.com"); r.status != 200 {
		t.Errorf("tile from the allowed origin: %d %s", r.status, r.body)
	}

	// List: total_count, cursor null on the last page.
	for range 11 {
		e.account("POST", "/api_keys", tok, map[string]any{})
	}
	r = e.account("GET", "/api_keys?limit=10", tok, nil)
	l := decodeJSON[struct {
		Cursor     *string      `json:"cursor"`
		TotalCount int          `json:"total_count"`
		Items      []accountKey `json:"items"`
	}](t, r.body)
	if r.status != 200 || l.TotalCount != 13 || len(l.Items) != 10 || l.Cursor == nil || l.Items[0].ID != k.ID || l.Items[1].ID != site.ID {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	r = e.account("GET", "/api_keys?limit=10&cursor="+*l.Cursor, tok, nil)
	if !strings.Contains(string(r.body), `"cursor":null`) || len(decodeJSON[struct{ Items []accountKey }](t, r.body).Items) != 3 {
		t.Errorf("second page: %s", r.body)
	}

	// DELETE: 200 without a body; the key stops working at once.
	if r := e.account("DELETE", "/api_keys/"+k.ID, tok, nil); r.status != 200 || len(r.body) != 0 {
		t.Errorf("delete: %d %q", r.status, r.body)
	}
	if r := e.account("DELETE", "/api_keys/"+k.ID, tok, nil); r.status != 404 {
		t.Errorf("delete twice: %d", r.status)
	}
	if r := e.do("GET", "/tiles/roads/0/0/0.pbf?key="+k.Token, nil); r.status != 403 || !isMessage(r.body) {
		t.Errorf("tile with a deleted key: %d %s", r.status, r.body)
	}
}
