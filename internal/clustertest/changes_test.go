package clustertest

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// within is how soon a change made through one node must hold on the
// others (issue 23).
const within = time.Second

// TestChangesReachEveryNode: each kind of change, made through one node,
// holds on the other two within a second, and through nginx on every
// request after that.
func TestChangesReachEveryNode(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	a, others := c.Nodes[0], c.Nodes[1:]
	// seen waits until every other node answers a GET of path with want,
	// then checks that three requests through nginx (round robin: one per
	// node) do too.
	seen := func(what, path string, want int, headers ...string) {
		t.Helper()
		for _, n := range others {
			start, last := time.Now(), 0
			for last = c.status(n.URL()+path, headers...); last != want; last = c.status(n.URL()+path, headers...) {
				if time.Since(start) > within {
					t.Fatalf("%s on %s: status %d after %v, want %d", what, n.Name, last, within, want)
				}
				time.Sleep(5 * time.Millisecond)
			}
			d := time.Since(start)
			t.Logf("%s: on %s after %v", what, n.Name, d.Round(time.Millisecond))
		}
		for range len(c.Nodes) {
			if s := c.status(c.LB+path, headers...); s != want {
				t.Fatalf("%s: %d through nginx, want %d", what, s, want)
			}
		}
	}

	tokID, secret := c.serviceToken(a.URL(), "changes")
	// A key created through A.
	keyID, key := c.apiKey(a.URL(), secret)
	tile := "/tiles/roads/0/0/0.pbf?key=" + key
	seen("key created", tile, 200)

	// A key changed through A: it now asks for a user agent.
	if r := c.account(a.URL(), "POST", "/api_keys/"+keyID+"/change_settings", secret, map[string]any{"user_agent": "cluster-client"}); r.status != 200 {
		t.Fatalf("change key: %d %s", r.status, r.body)
	}
	seen("key changed (refused without its user agent)", tile, 403, "User-Agent", "other")
	seen("key changed (allowed with its user agent)", tile, 200, "User-Agent", "cluster-client/1.0")
	if r := c.account(a.URL(), "POST", "/api_keys/"+keyID+"/change_settings", secret, map[string]any{"user_agent": nil}); r.status != 200 {
		t.Fatalf("change key back: %d %s", r.status, r.body)
	}
	seen("key changed back", tile, 200, "User-Agent", "other")

	// Unpublish, publish, rename of a tileset through A.
	roads := struct{ ID string }{c.tilesetID(a.URL(), "roads")}
	if roads.ID == "" {
		t.Fatal("no record of roads")
	}
	if r := c.admin(a.URL(), "POST", "/tiles/"+roads.ID+"/unpublish", nil); r.status != 200 {
		t.Fatalf("unpublish: %d %s", r.status, r.body)
	}
	seen("tileset unpublished", tile, 404)
	if r := c.admin(a.URL(), "POST", "/tiles/"+roads.ID+"/publish", nil); r.status != 200 {
		t.Fatalf("publish: %d %s", r.status, r.body)
	}
	seen("tileset published", tile, 200)
	if r := c.admin(a.URL(), "POST", "/tiles/"+roads.ID, map[string]any{"name": "streets"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.body)
	}
	seen("tileset renamed (new name)", "/tiles/streets/0/0/0.pbf?key="+key, 200)
	seen("tileset renamed (old name)", tile, 404)

	// A map's record changed through A: its raster tiles become JPEG (the
	// TileJSON of its raster tiles names them).
	mapTile := "/maps/city/256/0/0/0.png?key=" + key
	mapTiles := "/maps/city/256/tiles.json?key=" + key
	isJPEG := func(base string) bool {
		r := c.do("GET", base+mapTiles, nil)
		return r.status == 200 && strings.Contains(string(r.body), ".jpg")
	}
	if r := c.do("GET", a.URL()+mapTile, nil); r.status != 200 || r.header.Get("Content-Type") != "image/png" || isJPEG(a.URL()) {
		t.Fatalf("map tile on A: %d %s", r.status, r.header.Get("Content-Type"))
	}
	if r := c.admin(a.URL(), "POST", "/maps/city", map[string]any{"format": "jpeg"}); r.status != 200 {
		t.Fatalf("change map: %d %s", r.status, r.body)
	}
	for _, n := range others {
		d := await(t, within, "map format on "+n.Name, func() bool { return isJPEG(n.URL()) })
		t.Logf("map changed: on %s after %v", n.Name, d.Round(time.Millisecond))
	}
	if r := c.admin(a.URL(), "POST", "/maps/city/unpublish", nil); r.status != 200 {
		t.Fatalf("unpublish map: %d %s", r.status, r.body)
	}
	seen("map unpublished", "/maps/city/style.json?key="+key, 404)
	c.admin(a.URL(), "POST", "/maps/city/publish", nil)
	seen("map published", "/maps/city/style.json?key="+key, 200)

	// A style edited through A: the others fetch it from S3 and draw with
	// it.
	edited := strings.Replace(style, `"#eee"`, `"#123456"`, 1)
	r := c.do("PUT", a.URL()+"/v1/admin/maps/city/style", []byte(edited), "Authorization", "Basic "+adminToken)
	if r.status != 200 {
		t.Fatalf("edit the style: %d %s", r.status, r.body)
	}
	for _, n := range others {
		d := await(t, within, "the style edit on "+n.Name, func() bool {
			r := c.do("GET", n.URL()+"/maps/city/style.json?key="+key, nil)
			return r.status == 200 && strings.Contains(string(r.body), "#123456")
		})
		t.Logf("style edited: on %s after %v", n.Name, d.Round(time.Millisecond))
	}
	want := c.do("GET", a.URL()+"/maps/city/256/1/0/0.jpg?key="+key, nil)
	for _, n := range others {
		if got := c.do("GET", n.URL()+"/maps/city/256/1/0/0.jpg?key="+key, nil); got.status != 200 || !bytes.Equal(got.body, want.body) {
			t.Errorf("a raster tile of the edited map on %s: %d, %d bytes (%d on %s)", n.Name, got.status, len(got.body), len(want.body), a.Name)
		}
	}

	// A new tileset through A: a PMTiles archive in S3, added by URL;
	// then deleted.
	name := c.addRemoteArchive(t, a.URL())
	remote := struct{ ID, Name string }{c.tilesetID(a.URL(), name), name}
	seen("new tileset", "/tiles/"+remote.Name+"/0/0/0.pbf?key="+key, 200)
	if r := c.admin(a.URL(), "DELETE", "/tiles/"+remote.ID, nil); r.status != 200 && r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	seen("tileset deleted", "/tiles/"+remote.Name+"/0/0/0.pbf?key="+key, 404)

	// A service token revoked through A is refused by the others.
	for _, n := range others {
		if r := c.account(n.URL(), "GET", "/api_keys", secret, nil); r.status != 200 {
			t.Fatalf("token on %s: %d", n.Name, r.status)
		}
	}
	if r := c.admin(a.URL(), "DELETE", "/tokens/"+tokID, nil); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	for _, n := range others {
		await(t, within, "token revoked on "+n.Name, func() bool { return c.account(n.URL(), "GET", "/api_keys", secret, nil).status == 401 })
	}

	// A key deleted through A.
	_, secret2 := c.serviceToken(a.URL(), "changes-2")
	if r := c.account(a.URL(), "DELETE", "/api_keys/"+keyID, secret2, nil); r.status != 200 {
		t.Fatalf("delete key: %d %s", r.status, r.body)
	}
	seen("key deleted", "/tiles/streets/0/0/0.pbf?key="+key, 403)

}
