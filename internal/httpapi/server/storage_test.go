package server

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/pmtiles"
	"github.com/tesseramaps/tessera/internal/pyramid"
)

// sharedStorage starts versitygw with a bucket and returns the
// storage_url of a prefix in it; the credentials are in the AWS
// variables, as an operator sets them.
func sharedStorage(t *testing.T) string {
	t.Helper()
	const access, secret = "TESSERANODES", "tessera-nodes-secret"
	endpoint, root := fixtures.VersityGW(t, access, secret)
	if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	return "s3://shared/tessera?endpoint=" + endpoint + "&region=us-east-1&path_style=true"
}

// s3Calls reads tessera_s3_calls_total from /metrics, summed over the
// operations, and the count of one operation.
func (e *testEnv) s3Calls(op string) (total, one int) {
	e.t.Helper()
	body := e.do("GET", "/metrics", nil).body
	for _, m := range regexp.MustCompile(`(?m)^tessera_s3_calls_total\{operation="(\w+)"\} (\d+)`).FindAllSubmatch(body, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		total += n
		if string(m[1]) == op {
			one = n
		}
	}
	return total, one
}

// writeGrid writes a PMTiles archive of PNG tiles, every tile of zooms 0
// to maxZoom, each one different.
func writeGrid(t *testing.T, path string, maxZoom int) {
	t.Helper()
	w, err := pmtiles.NewWriter(path, pmtiles.WriterOptions{TileType: pmtiles.TileTypePNG, TileCompression: pmtiles.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	for z := 0; z <= maxZoom; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				w.PutTile(z, x, y, append(append([]byte{}, pngBytes...), fmt.Sprintf("%d/%d/%d", z, x, y)...))
			}
		}
	}
	if err := w.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestNodesShareStorage: two nodes over one PostgreSQL and one S3
// (versitygw). Node A has a map with an icon, a font and a tileset file in
// its data directory, and takes uploads (a GeoJSON dataset, a PMTiles
// archive); node B starts with an empty data directory and serves them
// all: the tiles (the PMTiles archive read from S3 with range requests,
// the MBTiles files downloaded into its cache), the dataset's features,
// the map, its sprite and the font. A dataset ingested through A once B
// runs reaches B too. The S3 calls are counted in /metrics: a warm tile
// makes none.
func TestNodesShareStorage(t *testing.T) {
	font := fixtures.Path(t, "fixtures/tileserver-gl/public/resources/fonts/OpenSans-Regular.ttf")
	dsn := pgtest.URL(t)
	storage := sharedStorage(t)
	shared := func(c *config.Config) { c.StorageURL = storage; c.APIKeys = config.APIKeysOff }
	a := newNode(t, dsn, shared, func(c *config.Config) {
		maps := filepath.Join(c.DataDir, MapsDir)
		os.MkdirAll(filepath.Join(maps, "city", "icons"), 0o755)
		os.WriteFile(filepath.Join(maps, "city", "style.json"), []byte(testStyle), 0o644)
		os.WriteFile(filepath.Join(maps, "city", "icons", "dot.svg"), []byte(testIcon), 0o644)
		data, err := os.ReadFile(font)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(c.DataDir, FontsDir), 0o755)
		os.WriteFile(filepath.Join(c.DataDir, FontsDir, "OpenSans-Regular.ttf"), data, 0o644)
	})
	r, parks := a.ingestFile("parks.geojson", []byte(parksGeoJSON))
	if r.status != 200 {
		t.Fatalf("ingest geojson: %d %s", r.status, r.body)
	}
	grid := filepath.Join(t.TempDir(), "grid.pmtiles")
	writeGrid(t, grid, 5) // 1,365 tiles
	data, _ := os.ReadFile(grid)
	if r, _ := a.ingestFile("grid.pmtiles", data); r.status != 200 {
		t.Fatalf("ingest pmtiles: %d %s", r.status, r.body)
	}
	if r := a.do("GET", "/ready", nil); r.status != 200 || decodeJSON[Readiness](t, r.body).Storage != "ok" {
		t.Fatalf("A ready: %d %s", r.status, r.body)
	}

	started := time.Now()
	b := newNode(t, dsn, shared, func(c *config.Config) {
		os.RemoveAll(filepath.Join(c.DataDir, TilesDir)) // empty: newNode put a tileset there
	})
	t.Logf("B started with an empty data directory in %v; its S3 calls: %v", time.Since(started).Round(time.Millisecond), b.srv.s3calls.Snapshot())
	entries, _ := os.ReadDir(filepath.Join(b.dir, TilesDir))
	for _, e := range entries {
		if e.Name() == "grid.pmtiles" {
			t.Errorf("B downloaded the PMTiles archive: it is read from S3")
		}
	}
	checks := []struct {
		path string
		want []byte // nil: A's answer
	}{
		{"/tiles/roads/0/0/0.pbf", nil},
		{"/tiles/parks/10/518/352.pbf", nil},
		{"/tiles/grid/5/17/9.png", append(append([]byte{}, pngBytes...), "5/17/9"...)},
		{"/data/parks/features.json", []byte(parksGeoJSON)},
		{"/maps/city/sprite.json", nil},
		{"/maps/city/sprite.png", nil},
		{"/fonts/Open%20Sans%20Regular/0-255.pbf", nil},
	}
	for _, c := range checks {
		got, want := b.do("GET", c.path, nil), a.do("GET", c.path, nil)
		if got.status != 200 || len(got.body) == 0 || !bytes.Equal(got.body, want.body) || (c.want != nil && !bytes.Equal(got.body, c.want)) {
			t.Errorf("B %s: %d (%d bytes), A: %d (%d bytes)", c.path, got.status, len(got.body), want.status, len(want.body))
		}
	}
	// The style names each node's own address: the same but for it.
	if got, want := b.do("GET", "/maps/city/style.json", nil), a.do("GET", "/maps/city/style.json", nil); got.status != 200 ||
		!bytes.Equal(bytes.ReplaceAll(got.body, []byte(b.http.URL), nil), bytes.ReplaceAll(want.body, []byte(a.http.URL), nil)) {
		t.Errorf("B style: %d %s\nA: %s", got.status, got.body, want.body)
	}
	if r := b.do("GET", "/ready", nil); r.status != 200 || decodeJSON[Readiness](t, r.body).Storage != "ok" {
		t.Fatalf("B ready: %d %s", r.status, r.body)
	}

	// A dataset ingested through A while B runs: B hears of the tileset
	// and fetches its features.
	second := `{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"name": "Pond"}, "geometry": {"type": "Point", "coordinates": [2.2, 48.8]}}]}`
	if r, _ := a.ingestFile("ponds.geojson", []byte(second)); r.status != 200 {
		t.Fatalf("ingest ponds: %d %s", r.status, r.body)
	}
	await(t, time.Second, "the new dataset on B", func() bool {
		r := b.do("GET", "/data/ponds/features.json", nil)
		return r.status == 200 && string(r.body) == second && b.status("/tiles/ponds/0/0/0.pbf") == 200
	})

	// The parks tileset replaced through A (the account API's dataset
	// ingest, same file name): B reopens it, with its new features.
	moved := strings.ReplaceAll(parksGeoJSON, "2.3", "3.3")
	secret := a.serviceToken("data")
	cr := a.account("POST", "/datasets/"+parks.DocumentID+"/ingest", secret, map[string]any{"filename": "parks.geojson", "size": len(moved), "supported_upload_types": []string{"resumable"}})
	v := decodeJSON[ingestView](t, cr.body)
	if cr.status != 200 {
		t.Fatalf("replace: %d %s", cr.status, cr.body)
	}
	if status, _, body := plainPut(t, v.UploadURL, []byte(moved)); status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	a.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, nil)
	if v = a.awaitIngest(secret, v.ID); v.State != "completed" {
		t.Fatalf("replace %+v", v)
	}
	const movedTile = "/tiles/parks/10/521/352.pbf" // where 3.3 E falls, empty before
	if a.status(movedTile) != 200 {
		t.Fatalf("A %s: %d", movedTile, a.status(movedTile))
	}
	await(t, time.Second, "the replaced tileset on B", func() bool {
		f := b.do("GET", "/data/parks/features.json", nil)
		tile, want := b.do("GET", movedTile, nil), a.do("GET", movedTile, nil)
		return f.status == 200 && string(f.body) == moved && tile.status == 200 && bytes.Equal(tile.body, want.body)
	})

	// An icon added on A's disk reaches B through a rescan of each (SIGHUP).
	os.WriteFile(filepath.Join(a.dir, MapsDir, "city", "icons", "square.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#33c"/></svg>`), 0o644)
	if err := a.srv.Rescan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.srv.Rescan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := b.do("GET", "/maps/city/sprite.json", nil); r.status != 200 || !bytes.Contains(r.body, []byte(`"square"`)) {
		t.Errorf("B's sprite after the rescans: %d %s", r.status, r.body)
	}

	// The map deleted through A: gone from S3 at once and from B's cache at
	// B's next rescan, so that no start brings it back.
	applied := b.srv.feed.Applied()
	if r := a.admin("DELETE", "/maps/city", nil); r.status != 200 {
		t.Fatalf("delete the map: %d %s", r.status, r.body)
	}
	// B applies the deletion (looking for the style in S3) on its own
	// time: awaited, so that its calls are not counted as the tiles' below.
	await(t, time.Second, "B applying the deletion", func() bool {
		n := b.srv.feed.Applied()
		return n > applied && n == b.srv.feed.Received()
	})
	if objs, err := a.srv.mirror.Files().List(t.Context(), "maps/city/"); err != nil || len(objs) != 0 {
		t.Errorf("the deleted map in S3: %v %v", objs, err)
	}
	if err := b.srv.Rescan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.dir, MapsDir, "city")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the deleted map's folder in B's cache: %v", err)
	}
	if s := b.status("/maps/city/style.json"); s != 404 {
		t.Errorf("the deleted map on B: %d", s)
	}

	// S3 calls per 1,000 tile requests of the archive read from S3: cold
	// (every tile new to B), then warm (the same tiles again).
	var paths []string
	for z := 0; z <= 5 && len(paths) < 1000; z++ {
		for x := 0; x < 1<<z && len(paths) < 1000; x++ {
			for y := 0; y < 1<<z && len(paths) < 1000; y++ {
				if z == 5 && x == 17 && y == 9 {
					continue // asked above
				}
				paths = append(paths, fmt.Sprintf("/tiles/grid/%d/%d/%d.png", z, x, y))
			}
		}
	}
	measure := func() (total, gets int) {
		t0, g0 := b.s3Calls("GetObject")
		for _, p := range paths {
			if s := b.status(p); s != 200 {
				t.Fatalf("%s: %d", p, s)
			}
		}
		t1, g1 := b.s3Calls("GetObject")
		return t1 - t0, g1 - g0
	}
	cold, coldGets := measure()
	warm, _ := measure()
	t.Logf("S3 calls per 1,000 tile requests of a PMTiles archive in S3: cold %d (%d GetObject), warm %d", cold, coldGets, warm)
	if cold < 900 || cold != coldGets {
		t.Errorf("cold: %d S3 calls (%d GetObject) for 1,000 new tiles, want about one ranged GetObject each", cold, coldGets)
	}
	if warm != 0 {
		t.Errorf("warm: %d S3 calls for 1,000 cached tiles, want 0", warm)
	}

	// The cache can be deleted at any time: B's data directory emptied,
	// a tile it never served still comes from S3.
	os.RemoveAll(b.dir)
	if r := b.do("GET", "/tiles/grid/5/31/31.png", nil); r.status != 200 {
		t.Errorf("after the cache was deleted: %d", r.status)
	}
}

// relay forwards TCP connections from its own address to target until
// cut, which closes the listener and every connection: the service behind
// it is then unreachable, as when S3 is down.
type relay struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

func newRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, up)
			r.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(r.cut)
	return r
}

func (r *relay) cut() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

// TestNodeReadinessStorage: a node whose S3 stops answering says so on
// /ready (503 degraded, the reason in "storage") and keeps serving what
// its cache holds, a tileset downloaded from S3 included.
func TestNodeReadinessStorage(t *testing.T) {
	storage := sharedStorage(t)
	u, err := url.Parse(storage)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, _ := url.Parse(u.Query().Get("endpoint"))
	rl := newRelay(t, endpoint.Host)
	q := u.Query()
	q.Set("endpoint", "http://"+rl.ln.Addr().String())
	u.RawQuery = q.Encode()
	dsn := pgtest.URL(t)
	shared := func(c *config.Config) { c.StorageURL = u.String(); c.APIKeys = config.APIKeysOff }
	newNode(t, dsn, shared) // puts roads.mbtiles in S3
	b := newNode(t, dsn, shared, func(c *config.Config) { os.RemoveAll(filepath.Join(c.DataDir, TilesDir)) })
	if s := b.status("/tiles/roads/0/0/0.pbf"); s != 200 {
		t.Fatalf("tile from S3: %d", s)
	}
	r := b.do("GET", "/ready", nil)
	if rd := decodeJSON[Readiness](t, r.body); r.status != 200 || rd.Storage != "ok" {
		t.Fatalf("ready: %d %s", r.status, r.body)
	}
	rl.cut()
	r = b.do("GET", "/ready", nil)
	rd := decodeJSON[Readiness](t, r.body)
	if r.status != 503 || rd.Status != "degraded" || rd.Storage == "ok" || rd.Storage == "" || rd.Database != "ok" {
		t.Errorf("ready without S3: %d %s", r.status, r.body)
	}
	if s := b.status("/health"); s != 200 {
		t.Errorf("health without S3: %d", s)
	}
	if s := b.status("/tiles/roads/1/1/0.pbf"); s != 200 && s != 204 {
		t.Errorf("a tile of the cached tileset without S3: %d", s)
	}
}

// TestSharedFeaturesPruned: the GeoJSON of a deleted tileset leaves the
// storage when a node starts (past the grace that protects a tileset
// being committed by another node).
func TestSharedFeaturesPruned(t *testing.T) {
	dsn := pgtest.URL(t)
	storage := sharedStorage(t)
	shared := func(c *config.Config) { c.StorageURL = storage; c.APIKeys = config.APIKeysOff }
	a := newNode(t, dsn, shared)
	r, parks := a.ingestFile("parks.geojson", []byte(parksGeoJSON))
	if r.status != 200 {
		t.Fatalf("ingest: %d %s", r.status, r.body)
	}
	key := DatasetsDir + "/" + parks.DocumentID + ".geojson"
	if _, err := a.srv.mirror.Files().Stat(t.Context(), key); err != nil {
		t.Fatalf("the GeoJSON in S3: %v", err)
	}
	if r := a.admin("DELETE", "/tiles/"+parks.DocumentID, nil); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	old := sharedFeaturesGrace
	sharedFeaturesGrace = 0
	t.Cleanup(func() { sharedFeaturesGrace = old })
	newNode(t, dsn, shared)
	if _, err := a.srv.mirror.Files().Stat(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("the deleted tileset's GeoJSON in S3 after a start: %v", err)
	}
}

// TestSharedImages: an image pyramid put in the storage by another node
// (or tessera image) is fetched on its first request; an id the storage
// does not have is asked of S3 once, not on every request.
func TestSharedImages(t *testing.T) {
	storage := sharedStorage(t)
	dsn := pgtest.URL(t)
	shared := func(c *config.Config) { c.StorageURL = storage; c.APIKeys = config.APIKeysOff }
	a, b := newNode(t, dsn, shared), newNode(t, dsn, shared)
	_, heads := b.s3Calls("HeadObject")
	for range 5 {
		if s := b.status("/images/nothing/image.json"); s != 404 {
			t.Fatalf("a missing image: %d", s)
		}
	}
	if _, after := b.s3Calls("HeadObject"); after-heads != 1 {
		t.Errorf("5 requests of a missing image cost %d HeadObject calls, want 1", after-heads)
	}
	src := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	if _, err := pyramid.WriteMBTiles(t.Context(), pyramid.ImageRows(src), filepath.Join(a.dir, ImagesDir, "plan.mbtiles"), "plan", pyramid.Meta{}, pyramid.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := a.srv.mirror.Push(t.Context(), ImagesDir+"/plan.mbtiles"); err != nil {
		t.Fatal(err)
	}
	if r := b.do("GET", "/images/plan/image.json", nil); r.status != 200 || !bytes.Contains(r.body, []byte(`"width":300`)) {
		t.Errorf("the image made on A, on B: %d %s", r.status, r.body)
	}
}

// TestDeletedTilesetStaysDeleted: a tileset deleted through one node is
// not brought back by another node that cached its file and starts again
// (its scan of tiles/ would record the file as new): the cached copy of a
// file deleted from S3 is dropped first.
func TestDeletedTilesetStaysDeleted(t *testing.T) {
	storage := sharedStorage(t)
	dsn := pgtest.URL(t)
	shared := func(c *config.Config) { c.StorageURL = storage; c.APIKeys = config.APIKeysOff }
	a := newNode(t, dsn, shared) // roads.mbtiles, put in S3
	var bDir string
	b := newNode(t, dsn, shared, func(c *config.Config) { os.RemoveAll(filepath.Join(c.DataDir, TilesDir)); bDir = c.DataDir })
	if s := b.status("/tiles/roads/0/0/0.pbf"); s != 200 {
		t.Fatalf("B: %d", s)
	}
	if _, err := os.Stat(filepath.Join(bDir, TilesDir, "roads.mbtiles")); err != nil {
		t.Fatalf("B's cached copy: %v", err)
	}
	roads, _ := a.srv.Catalog.Get("roads")
	if r := a.admin("DELETE", "/tiles/"+roads.ID, nil); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	await(t, time.Second, "roads gone from B", func() bool { _, ok := b.srv.Catalog.ByID(roads.ID); return !ok })
	snapshot := t.TempDir() // B's cache as it is, for a node started over it below
	copyTree(t, bDir, snapshot)
	// B rescans its tiles folder (the admin API) while its copy is there:
	// the copy goes, the tileset stays deleted.
	if r := b.admin("POST", "/tiles/rescan", nil); r.status != 200 || bytes.Contains(r.body, []byte(`"roads"`)) {
		t.Fatalf("B's rescan: %d %s", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join(bDir, TilesDir, "roads.mbtiles")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("B's copy after its rescan: %v", err)
	}
	// A node starts over B's cache as it was (B still runs).
	c := newNode(t, dsn, shared, func(c *config.Config) {
		os.RemoveAll(filepath.Join(c.DataDir, TilesDir))
		copyTree(t, snapshot, c.DataDir)
	})
	if s := c.status("/tiles/roads/0/0/0.pbf"); s != 404 {
		t.Errorf("the deleted tileset after a restart over a cache that held it: %d", s)
	}
	if _, err := os.Stat(filepath.Join(c.dir, TilesDir, "roads.mbtiles")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cached copy of the deleted file: %v", err)
	}
	if _, err := a.srv.mirror.Files().Stat(t.Context(), TilesDir+"/roads.mbtiles"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("the deleted file in S3: %v", err)
	}
	await(t, time.Second, "no roads on A", func() bool { _, ok := a.srv.Catalog.Get("roads"); return !ok })
}

// copyTree copies the files of src into dst, keeping their modification
// times (as a data directory moved to another machine would).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime())
	})
}
