package clustertest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
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
// when the lease (2 s here) ends and completes it, once.
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

	// The tileset is there.
	_, key := c.apiKey(c.LB, secret)
	if s := c.status(finisher.URL() + "/tiles/roads-west/6/31/22.pbf?key=" + key); s != 200 {
		t.Errorf("a tile of the new tileset on %s: %d", finisher.Name, s)
	}
}
