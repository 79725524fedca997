package clustertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigGeoJSON is a FeatureCollection of lines over western Europe of at
// least size bytes: more than one 5 MiB part of a multipart upload, and
// seconds of tiling.
func bigGeoJSON(size int) []byte {
	rng := rand.New(rand.NewPCG(23, 23))
	var b bytes.Buffer
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		x, y := -5+rng.Float64()*20, 40+rng.Float64()*15
		fmt.Fprintf(&b, `{"type":"Feature","properties":{"name":"road %d","kind":%d},"geometry":{"type":"LineString","coordinates":[`, i, i%7)
		for j := range 12 {
			if j > 0 {
				b.WriteByte(',')
			}
			x += rng.Float64()*0.02 - 0.01
			y += rng.Float64()*0.02 - 0.01
			fmt.Fprintf(&b, "[%.6f,%.6f]", x, y)
		}
		b.WriteString("]}}")
	}
	b.WriteString("]}")
	return b.Bytes()
}

// datasetIngest is the part of the account API's ingest answer the tests
// read.
type datasetIngest struct {
	ID         string  `json:"id"`
	DocumentID *string `json:"document_id"`
	State      string  `json:"state"`
	Progress   float64 `json:"progress"`
	Errors     []struct{ Message string }
	Upload     *struct {
		Type     string `json:"type"`
		PartSize int64  `json:"part_size"`
		Parts    []struct {
			PartID int    `json:"part_id"`
			URL    string `json:"url"`
		} `json:"parts"`
	} `json:"upload"`
}

// putPart PUTs a part to its presigned URL and returns its ETag.
func putPart(t *testing.T, url string, data []byte) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(data))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("ETag") == "" {
		t.Fatalf("PUT part: %d %s", res.StatusCode, body)
	}
	return res.Header.Get("ETag")
}

// claimedBy returns the node whose log says it claimed the ingest, or nil.
func (c *Cluster) claimedBy(id string) *Node {
	for _, n := range c.Nodes {
		if strings.Contains(n.Log(), `msg="dataset ingest claimed" ingest=`+id) {
			return n
		}
	}
	return nil
}

// TestIngestAcrossNodes: a dataset is created through one node, its two
// parts uploaded with part URLs handed out by two different nodes (the
// parts go to S3: a part URL is presigned for the bucket), and it is
// processed through the third. The node that claims the work is killed
// with SIGKILL while it processes; another node takes the ingest over
// when the lease (2 s here) ends and completes it, once. Every node serves
// the tileset made, the killed one once started again.
func TestIngestAcrossNodes(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	n1, n2, n3 := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	_, secret := c.serviceToken(c.LB, "ingest")
	data := bigGeoJSON(7 << 20)

	r := c.account(n1.URL(), "POST", "/datasets/ingest", secret, map[string]any{
		"filename": "roads-west.geojson", "size": len(data), "supported_upload_types": []string{"s3_multipart"},
	})
	if r.status != 200 {
		t.Fatalf("create through %s: %d %s", n1.Name, r.status, r.body)
	}
	v := decode[datasetIngest](t, r.body)
	if v.Upload == nil || len(v.Upload.Parts) != 2 || v.Upload.PartSize != 5<<20 {
		t.Fatalf("created %s", r.body)
	}
	// Part 1 with node 1's URL, part 2 with the URL node 2 hands out.
	r = c.account(n2.URL(), "GET", "/datasets/ingest/"+v.ID, secret, nil)
	v2 := decode[datasetIngest](t, r.body)
	if r.status != 200 || v2.Upload == nil || len(v2.Upload.Parts) != 2 {
		t.Fatalf("the ingest on %s: %d %s", n2.Name, r.status, r.body)
	}
	etag1 := putPart(t, v.Upload.Parts[0].URL, data[:5<<20])
	etag2 := putPart(t, v2.Upload.Parts[1].URL, data[5<<20:])
	r = c.account(n3.URL(), "POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{
		"upload_result": map[string]any{"type": "s3_multipart", "parts": []map[string]any{{"part_id": 1, "etag": etag1}, {"part_id": 2, "etag": etag2}}},
	})
	if r.status != 200 {
		t.Fatalf("process through %s: %d %s", n3.Name, r.status, r.body)
	}

	// The node that claims it dies while processing.
	var worker *Node
	await(t, 10*time.Second, "a node claims the ingest", func() bool { worker = c.claimedBy(v.ID); return worker != nil })
	worker.Signal(t, syscall.SIGKILL)
	if strings.Contains(worker.Log(), "dataset ingest completed") {
		t.Fatalf("%s completed the ingest before it was killed: the kill proves nothing", worker.Name)
	}
	t.Logf("%s claimed the ingest and was killed", worker.Name)

	deadline := time.Now().Add(90 * time.Second)
	for {
		r = c.account(c.LB, "GET", "/datasets/ingest/"+v.ID, secret, nil)
		if r.status != 200 {
			t.Fatalf("ingest through nginx: %d %s", r.status, r.body)
		}
		if v = decode[datasetIngest](t, r.body); v.State != "processing" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still processing after 90 s: %s", r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v.State != "completed" || v.DocumentID == nil {
		t.Fatalf("ingest ended %s", r.body)
	}
	var finisher *Node
	completed := regexp.MustCompile(`msg="dataset ingest completed" ingest=` + v.ID)
	for _, n := range c.Nodes {
		if k := len(completed.FindAllString(n.Log(), -1)); k > 0 {
			if finisher != nil || k > 1 {
				t.Fatalf("the ingest was completed more than once")
			}
			finisher = n
		}
	}
	if finisher == nil || finisher == worker {
		t.Fatalf("completed by %v, killed %s", finisher, worker.Name)
	}
	if !strings.Contains(finisher.Log(), `msg="dataset ingest claimed" ingest=`+v.ID) {
		t.Fatalf("%s completed the ingest without claiming it", finisher.Name)
	}
	t.Logf("%s took the ingest over and completed it", finisher.Name)

	// The tileset is served by every node (the killed one started again)
	// and through nginx: its file is in S3.
	worker.Start(t)
	worker.AwaitReady(t, 30*time.Second)
	_, key := c.apiKey(c.LB, secret)
	c.awaitKey(key)
	tile := "/tiles/roads-west/6/31/22.pbf?key=" + key
	want := c.do("GET", finisher.URL()+tile, nil)
	if want.status != 200 {
		t.Fatalf("a tile of the new tileset on %s: %d", finisher.Name, want.status)
	}
	for _, n := range c.Nodes {
		await(t, within, "the new tileset on "+n.Name, func() bool {
			r := c.do("GET", n.URL()+tile, nil)
			return r.status == 200 && bytes.Equal(r.body, want.body)
		})
	}
	for range len(c.Nodes) {
		if s := c.status(c.LB + tile); s != 200 {
			t.Errorf("the new tileset through nginx: %d", s)
		}
	}
}

// putChunk PUTs bytes lo..hi-1 of data to a resumable upload's URL on a
// node (the URL's path, on base) and returns the status and body.
func (c *Cluster) putChunk(base, uploadURL string, data []byte, lo, hi int) resp {
	c.t.Helper()
	u, err := url.Parse(uploadURL)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.do("PUT", base+u.Path, data[lo:hi], "Content-Range", fmt.Sprintf("bytes %d-%d/%d", lo, hi-1, len(data)))
}

// TestResumableAcrossNodes: the chunks of a resumable dataset upload
// reach different nodes (with storage_url they are kept in S3): each node
// knows what the others received, refuses a chunk past it, takes a chunk
// sent again over received bytes; the third node processes the upload.
func TestResumableAcrossNodes(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	n1, n2, n3 := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	_, secret := c.serviceToken(c.LB, "resumable")
	data := bigGeoJSON(300 << 10)
	r := c.account(n1.URL(), "POST", "/datasets/ingest", secret, map[string]any{
		"filename": "roads-chunked.geojson", "size": len(data), "supported_upload_types": []string{"resumable"},
	})
	v := decode[struct {
		datasetIngest
		UploadURL string `json:"upload_url"`
	}](t, r.body)
	if r.status != 200 || v.UploadURL == "" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	third := len(data) / 3
	received := func(n *Node) int64 {
		r := c.account(n.URL(), "GET", "/datasets/ingest/"+v.ID, secret, nil)
		w := decode[struct {
			Upload *struct {
				Received *int64 `json:"received"`
			} `json:"upload"`
		}](t, r.body)
		if r.status != 200 || w.Upload == nil || w.Upload.Received == nil {
			t.Fatalf("ingest on %s: %d %s", n.Name, r.status, r.body)
		}
		return *w.Upload.Received
	}
	// A chunk that leaves the upload incomplete is answered 202, the last
	// one 200.
	if r := c.putChunk(n1.URL(), v.UploadURL, data, 0, third); r.status != 202 {
		t.Fatalf("chunk 1 on %s: %d %s", n1.Name, r.status, r.body)
	}
	chunksInS3 := func() []string {
		left, _ := filepath.Glob(filepath.Join(c.S3Root, bucket, "cluster", "ingests", v.ID, "chunks", "*"))
		return left
	}
	if got := chunksInS3(); len(got) != 1 {
		t.Fatalf("chunks in S3 after the first: %v", got)
	}
	for _, n := range c.Nodes {
		if got := received(n); got != int64(third) {
			t.Fatalf("%s says %d bytes received, want %d", n.Name, got, third)
		}
	}
	// A chunk that leaves a gap is refused by another node too.
	if r := c.putChunk(n2.URL(), v.UploadURL, data, 2*third, len(data)); r.status != 400 {
		t.Fatalf("a chunk past the bytes received, on %s: %d %s", n2.Name, r.status, r.body)
	}
	// The second chunk overlaps the first (sent again from a bit before
	// its end), on node 2; the last goes to node 1.
	if r := c.putChunk(n2.URL(), v.UploadURL, data, third-100, 2*third); r.status != 202 {
		t.Fatalf("chunk 2 on %s: %d %s", n2.Name, r.status, r.body)
	}
	if r := c.putChunk(n1.URL(), v.UploadURL, data, 2*third, len(data)); r.status != 200 {
		t.Fatalf("chunk 3 on %s: %d %s", n1.Name, r.status, r.body)
	}
	if got := received(n3); got != int64(len(data)) {
		t.Fatalf("%s says %d bytes received, want %d", n3.Name, got, len(data))
	}
	if r := c.account(n3.URL(), "POST", "/datasets/ingest/"+v.ID+"/process", secret, map[string]any{"upload_result": map[string]any{"type": "resumable"}}); r.status != 200 {
		t.Fatalf("process on %s: %d %s", n3.Name, r.status, r.body)
	}
	await(t, 60*time.Second, "the ingest completed", func() bool {
		r := c.account(c.LB, "GET", "/datasets/ingest/"+v.ID, secret, nil)
		w := decode[datasetIngest](t, r.body)
		if w.State != "processing" && w.State != "completed" {
			t.Fatalf("ingest %s", r.body)
		}
		return w.State == "completed"
	})
	// The tileset was made from the whole file: its features are the
	// upload's, byte for byte (kept beside the tileset).
	_, key := c.apiKey(c.LB, secret)
	c.awaitKey(key)
	for range len(c.Nodes) {
		if s := c.status(c.LB + "/tiles/roads-chunked/6/31/22.pbf?key=" + key); s != 200 {
			t.Errorf("a tile of the new tileset through nginx: %d", s)
		}
	}
	// Nothing of the upload is left in S3.
	if left := chunksInS3(); len(left) != 0 {
		t.Errorf("chunks left in S3: %v", left)
	}
}

// TestAdminIngestAcrossNodes: an admin tileset ingest whose chunks reach
// two nodes is processed through the third; asking two nodes at once to
// process it makes one tileset.
func TestAdminIngestAcrossNodes(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	n1, n2, n3 := c.Nodes[0], c.Nodes[1], c.Nodes[2]
	data := bigGeoJSON(200 << 10)
	r := c.admin(n1.URL(), "POST", "/tiles/ingest", map[string]any{"filename": "roads-admin.geojson", "size": len(data)})
	v := decode[struct {
		ID        string `json:"id"`
		UploadURL string `json:"upload_url"`
		Received  int64  `json:"received"`
		State     string `json:"state"`
	}](t, r.body)
	if r.status != 200 || v.UploadURL == "" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	half := len(data) / 2
	put := func(n *Node, lo, hi int) resp {
		u, _ := url.Parse(v.UploadURL)
		return c.do("PUT", n.URL()+u.Path, data[lo:hi], "Authorization", "Basic "+adminToken,
			"Content-Range", fmt.Sprintf("bytes %d-%d/%d", lo, hi-1, len(data)))
	}
	if r := put(n1, 0, half); r.status != 202 {
		t.Fatalf("chunk 1 on %s: %d %s", n1.Name, r.status, r.body)
	}
	if r := put(n2, half, len(data)); r.status != 200 {
		t.Fatalf("chunk 2 on %s: %d %s", n2.Name, r.status, r.body)
	}
	got := decode[struct {
		Received int64  `json:"received"`
		State    string `json:"state"`
	}](t, c.admin(n3.URL(), "GET", "/tiles/ingest/"+v.ID, nil).body)
	if got.Received != int64(len(data)) || got.State != "uploaded" {
		t.Fatalf("the ingest on %s: %+v", n3.Name, got)
	}
	// Two nodes asked at once: one processes, the other answers 409
	// while it does (or the tileset when it is done already).
	type answer struct {
		status int
		id     string
	}
	answers := make(chan answer, 2)
	for _, n := range []*Node{n3, n1} {
		go func() {
			req, _ := http.NewRequest("POST", n.URL()+"/v1/admin/tiles/ingest/"+v.ID+"/process", nil)
			req.Header.Set("Authorization", "Basic "+adminToken)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				answers <- answer{status: -1}
				return
			}
			defer res.Body.Close()
			var d struct{ ID string }
			b, _ := io.ReadAll(res.Body)
			json.Unmarshal(b, &d)
			answers <- answer{res.StatusCode, d.ID}
		}()
	}
	a, b := <-answers, <-answers
	t.Logf("process asked of two nodes at once: %d and %d", a.status, b.status)
	made := map[string]bool{}
	for _, x := range []answer{a, b} {
		switch x.status {
		case 200:
			made[x.id] = true
		case 409:
		default:
			t.Fatalf("process: %d", x.status)
		}
	}
	if len(made) != 1 {
		t.Fatalf("process answers %+v %+v: want one tileset", a, b)
	}
	// Every node lists it (the change feed), once.
	for _, node := range c.Nodes {
		n := 0
		await(t, within, "the new tileset on "+node.Name, func() bool {
			list := decode[struct{ Items []struct{ Name string } }](t, c.admin(node.URL(), "GET", "/tiles?limit=1000", nil).body)
			n = 0
			for _, it := range list.Items {
				if strings.HasPrefix(it.Name, "roads-admin") {
					n++
				}
			}
			return n > 0
		})
		if n != 1 {
			t.Fatalf("%d tilesets made from the upload on %s", n, node.Name)
		}
	}
	_, secret := c.serviceToken(c.LB, "admin-ingest")
	_, key := c.apiKey(c.LB, secret)
	c.awaitKey(key)
	for range len(c.Nodes) {
		if s := c.status(c.LB + "/tiles/roads-admin/6/31/22.pbf?key=" + key); s != 200 {
			t.Errorf("a tile of the new tileset through nginx: %d", s)
		}
	}
}
