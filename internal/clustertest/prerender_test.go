package clustertest

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// prerenderJob is the part of a pre-render job the test reads.
type prerenderJob struct {
	ID        string  `json:"id"`
	State     string  `json:"state"`
	Progress  float64 `json:"progress"`
	TilesetID *string `json:"tileset_id"`
	Errors    []struct{ Message string }
}

// TestPrerenderAcrossNodes: a pre-render job asked through nginx is
// claimed by one node, which is killed with SIGKILL while it renders;
// another node takes the job over when the lease ends and completes it,
// once; every node serves the tileset made.
func TestPrerenderAcrossNodes(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	r := c.admin(c.LB, "POST", "/maps/city/prerender", map[string]any{"minzoom": 0, "maxzoom": 5, "name": "city-raster"})
	if r.status != 202 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	job := decode[prerenderJob](t, r.body)
	claimed := `msg="pre-render job claimed" job=` + job.ID
	var worker *Node
	await(t, 10*time.Second, "a node claims the job", func() bool {
		for _, n := range c.Nodes {
			if strings.Contains(n.Log(), claimed) {
				worker = n
				return true
			}
		}
		return false
	})
	worker.Signal(t, syscall.SIGKILL)
	if strings.Contains(worker.Log(), "pre-render job completed") {
		t.Fatalf("%s completed the job before it was killed: the kill proves nothing", worker.Name)
	}
	t.Logf("%s claimed the job and was killed", worker.Name)
	deadline := time.Now().Add(120 * time.Second)
	for job.State == "processing" {
		if time.Now().After(deadline) {
			t.Fatalf("still processing: %+v", job)
		}
		time.Sleep(100 * time.Millisecond)
		if r = c.admin(c.LB, "GET", "/prerender/"+job.ID, nil); r.status != 200 {
			t.Fatalf("job through nginx: %d %s", r.status, r.body)
		}
		job = decode[prerenderJob](t, r.body)
	}
	if job.State != "completed" || job.TilesetID == nil {
		t.Fatalf("job ended %s", r.body)
	}
	done := 0
	for _, n := range c.Nodes {
		if k := strings.Count(n.Log(), `msg="pre-render job completed" job=`+job.ID); k > 0 {
			done += k
			if n == worker || !strings.Contains(n.Log(), claimed) {
				t.Errorf("%s completed the job (killed: %s)", n.Name, worker.Name)
			}
			t.Logf("%s took the job over and completed it", n.Name)
		}
	}
	if done != 1 {
		t.Fatalf("the job was completed %d times", done)
	}
	worker.Start(t)
	worker.AwaitReady(t, 30*time.Second)
	_, secret := c.serviceToken(c.LB, "prerender")
	_, key := c.apiKey(c.LB, secret)
	c.awaitKey(key)
	for _, n := range c.Nodes {
		await(t, within, "the rendered tileset on "+n.Name, func() bool {
			return c.status(n.URL()+"/tiles/city-raster/5/16/11.png?key="+key) == 200
		})
	}
	if id := c.tilesetID(c.LB, "city-raster"); id != *job.TilesetID {
		t.Errorf("the tileset listed is %q, the job made %q", id, *job.TilesetID)
	}
}
