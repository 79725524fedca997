package main

import (
	"bytes"
	"context"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func writeTileset(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	w, err := mbtiles.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.PutTile(ctx, 0, 0, 0, []byte("\x89PNG\r\n\x1a\nx"))
	w.SetMetadata(ctx, map[string]string{"format": "png"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls url until it answers status, for at most 10 s.
func waitFor(t *testing.T, url string, status int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer %d in time (last: %v)", url, status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startServe runs "tessera serve" in this process.
func startServe(t *testing.T, args ...string) (base string, out *fixtures.SyncBuffer) {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	out = &fixtures.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"serve", "--listen", addr}, args...), out, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !strings.Contains(err.Error(), "closed") {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	base = "http://" + addr
	waitFor(t, base+"/health", 200)
	return base, out
}

func TestServePrintsCredentialsAndPicksUpFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tiles"), 0o755)
	writeTileset(t, filepath.Join(dir, "tiles", "first.mbtiles"))
	t.Setenv("TESSERA_ADMIN_CREDENTIALS", "")
	base, out := startServe(t, "--data", dir)
	text := out.String()
	if !strings.Contains(text, "Authorization: Basic ") || !strings.Contains(text, base+"/tiles/first/") {
		t.Errorf("start-up output lacks the credentials or the tileset URL:\n%s", text)
	}
	// The watcher picks up a new file.
	writeTileset(t, filepath.Join(dir, "tiles", ".tmp-second"))
	os.Rename(filepath.Join(dir, "tiles", ".tmp-second"), filepath.Join(dir, "tiles", "second.mbtiles"))
	waitFor(t, base+"/tiles/second/0/0/0.png", 200)
	// ...and notices a removed one.
	os.Remove(filepath.Join(dir, "tiles", "first.mbtiles"))
	waitFor(t, base+"/tiles/first/0/0/0.png", 404)
}

func TestSIGHUPRescans(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tiles"), 0o755)
	base, _ := startServe(t, "--data", dir, "--watch=false")
	writeTileset(t, filepath.Join(dir, "tiles", "late.mbtiles"))
	// Without watching, the file is only seen after SIGHUP.
	resp, err := http.Get(base + "/tiles/late/0/0/0.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("before SIGHUP: %d", resp.StatusCode)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, base+"/tiles/late/0/0/0.png", 200)
}

func TestVerbs(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "tessera ") {
		t.Errorf("version: %q %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"nope"}, io.Discard, io.Discard); err == nil {
		t.Error("unknown verb: want an error")
	}
	if err := run(context.Background(), []string{"serve", "--listen", ""}, io.Discard, io.Discard); err == nil {
		t.Error("empty listen address: want an error")
	}
	// ingest adds files through the same checks as the admin API.
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "roads.geojson")
	os.WriteFile(src, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}`), 0o644)
	out.Reset()
	if err := run(context.Background(), []string{"ingest", "--data", dir, src}, &out, io.Discard); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiles", "roads.mbtiles")); err != nil || !strings.Contains(out.String(), `tileset "roads"`) {
		t.Errorf("ingest output %q, file: %v", out.String(), err)
	}
	bad := filepath.Join(t.TempDir(), "bad.geojson")
	os.WriteFile(bad, []byte(`{"type":"FeatureCollection","features":[{]}`), 0o644)
	if err := run(context.Background(), []string{"ingest", "--data", dir, bad}, io.Discard, io.Discard); err == nil {
		t.Error("ingest of broken GeoJSON: want an error")
	}
	// convert to PMTiles and to files.
	pm := filepath.Join(t.TempDir(), "roads.pmtiles")
	if err := run(context.Background(), []string{"convert", filepath.Join(dir, "tiles", "roads.mbtiles"), pm}, io.Discard, io.Discard); err != nil {
		t.Fatalf("convert: %v", err)
	}
	if st, err := os.Stat(pm); err != nil || st.Size() < 127 {
		t.Errorf("converted archive: %v", err)
	}
}

// TestOneLogFormat checks that the process logger is also slog's default
// (and so the log package's): packages logging through slog.Default() write
// lines in the verb's format, not the log package's "2026/11/28 ... INFO".
func TestOneLogFormat(t *testing.T) {
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	var buf bytes.Buffer
	newLogger(&buf, "info", "text")
	slog.Default().Info("opendata: fetching npm package", "spec", "world-atlas@2")
	stdlog.Print("from the log package")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2: %q", len(lines), buf.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "time=") || !strings.Contains(l, " level=INFO msg=") {
			t.Errorf("line %q is not in the text handler's format", l)
		}
	}
}
