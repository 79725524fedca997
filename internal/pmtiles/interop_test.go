package pmtiles

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// interopJS reads archives with the reference JavaScript implementation
// (npm package "pmtiles") and prints one line per archive.
const interopJS = `
const { PMTiles } = require("pmtiles");
const fs = require("fs");
class Src {
  constructor(p) { this.b = fs.readFileSync(p); this.p = p; }
  getKey() { return this.p; }
  async getBytes(offset, length) {
    const s = this.b.subarray(offset, offset + length);
    return { data: s.buffer.slice(s.byteOffset, s.byteOffset + s.length) };
  }
}
(async () => {
  for (const name of process.argv.slice(2)) {
    const p = new PMTiles(new Src(name + ".pmtiles"));
    const h = await p.getHeader();
    const md = await p.getMetadata();
    const want = JSON.parse(fs.readFileSync(name + ".json"));
    let bad = 0;
    for (const w of want) {
      const t = await p.getZxy(w.z, w.x, w.y);
      if (!t || Buffer.from(t.data).toString("hex") !== w.hex) bad++;
    }
    const absent = await p.getZxy(20, 1, 1);
    console.log(JSON.stringify({ bad, tiles: want.length, addressed: h.numAddressedTiles, clustered: h.clustered, minZoom: h.minZoom, maxZoom: h.maxZoom, name: md.name, absent: absent === undefined }));
  }
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestInteropPMTilesJS checks that archives made by Writer are read
// correctly by the reference JavaScript reader. It needs node and the npm
// package pmtiles reachable through NODE_PATH (or TESSERA_NODE_PATH).
func TestInteropPMTilesJS(t *testing.T) {
	node := fixtures.Tool(t, "node")
	nodePath := os.Getenv("TESSERA_NODE_PATH")
	if nodePath == "" {
		nodePath = os.Getenv("NODE_PATH")
	}
	check := exec.Command(node, "-e", `require.resolve("pmtiles")`)
	check.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	if out, err := check.CombinedOutput(); err != nil {
		if fixtures.RequireTools() {
			t.Fatalf("npm package pmtiles not found via NODE_PATH=%q: %s", nodePath, out)
		}
		t.Skipf("npm package pmtiles not found via NODE_PATH=%q (npm install pmtiles@4 and set NODE_PATH): skipping", nodePath)
	}
	dir := t.TempDir()
	cases := []struct {
		name     string
		internal Compression
		n        int
	}{{"gzip_leaves", CompressionGzip, 20000}, {"none_leaves", CompressionNone, 5000}, {"gzip_root", CompressionGzip, 200}}
	var args []string
	for i, c := range cases {
		tiles := makeTiles(uint64(100+i), c.n, 6, 14, 5)
		base := filepath.Join(dir, c.name)
		writeArchive(t, base+".pmtiles", tiles, WriterOptions{TileType: TileTypeMVT, TileCompression: CompressionNone,
			InternalCompression: c.internal, Metadata: []byte(`{"name":"` + c.name + `"}`)}, 0)
		type want struct {
			Z   int    `json:"z"`
			X   int    `json:"x"`
			Y   int    `json:"y"`
			Hex string `json:"hex"`
		}
		ws := make([]want, len(tiles))
		for i, tl := range tiles {
			ws[i] = want{tl.z, tl.x, tl.y, hex.EncodeToString(tl.data)}
		}
		b, _ := json.Marshal(ws)
		if err := os.WriteFile(base+".json", b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, base)
	}
	script := filepath.Join(dir, "check.cjs")
	if err := os.WriteFile(script, []byte(interopJS), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("node output:\n%s", out)
	}
	for i, line := range lines {
		var res struct {
			Bad, Tiles, Addressed int
			Clustered, Absent     bool
			MinZoom, MaxZoom      int
			Name                  string
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("node output %q: %v", line, err)
		}
		c := cases[i]
		if res.Bad != 0 || res.Tiles != c.n || res.Addressed != c.n || !res.Clustered || !res.Absent ||
			res.MinZoom != 6 || res.MaxZoom != 14 || res.Name != c.name {
			t.Errorf("%s: JS reader says %+v", c.name, res)
		}
	}
}
