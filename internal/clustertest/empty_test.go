package clustertest

import (
	"bytes"
	"testing"
)

// TestEmptyDataDir: a node started with an empty data directory, after
// the others have put their files in S3, serves everything they serve:
// vector tiles, the map's style and raster tiles, the TileJSON and
// geocoding, with the same bytes; through nginx too.
func TestEmptyDataDir(t *testing.T) {
	c := startCluster(t, options{emptyData: 2})
	full, empty := c.Nodes[0], c.Nodes[2]
	_, secret := c.serviceToken(c.LB, "empty")
	_, key := c.apiKey(c.LB, secret)
	c.awaitKey(key)
	paths := []string{
		"/tiles/roads/0/0/0.pbf",
		"/tiles/roads/4/8/5.pbf",
		"/tiles/roads/tiles.json",
		"/maps/city/style.json",
		"/maps/city/256/0/0/0.png",
		"/maps/city/256/2/1/1.png",
		"/geocoding/northtown.json",
		"/geocoding/5,8.json",
	}
	for _, p := range paths {
		u := p + "?key=" + key
		want := c.do("GET", full.URL()+u, nil)
		if want.status != 200 {
			t.Fatalf("%s on %s: %d %s", p, full.Name, want.status, want.body)
		}
		got := c.do("GET", empty.URL()+u, nil)
		if got.status != 200 {
			t.Errorf("%s on the node started empty: %d %s", p, got.status, got.body)
			continue
		}
		// Documents carry the node's own URL: compare them with it
		// replaced.
		g := bytes.ReplaceAll(got.body, []byte(empty.URL()), []byte(full.URL()))
		if !bytes.Equal(g, want.body) {
			t.Errorf("%s: the node started empty answers %d bytes, %s %d bytes", p, len(got.body), full.Name, len(want.body))
		}
		for range len(c.Nodes) {
			if s := c.status(c.LB + u); s != 200 {
				t.Errorf("%s through nginx: %d", p, s)
			}
		}
	}
}
