package clienttest

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestReadmeMakeRun runs the README's first command exactly as written, in a
// fresh clone of the repository (default DATA, a free port): `make run` must
// install what it needs, build, make the demo world and serve the map, a
// tile, a glyph range and a geocoding answer, then stop cleanly on an
// interrupt. It needs the network (npm, Debian) and takes minutes.
func TestReadmeMakeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fresh-clone run of make run takes minutes")
	}
	for _, tool := range []string{"git", "make", "npm", "go"} {
		fixtures.Tool(t, tool)
	}
	root := fixtures.RepoRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := firstCodeBlock(string(readme))
	if !strings.HasPrefix(strings.TrimSpace(first), "make run") || !strings.Contains(first, "\nmake test") {
		t.Fatalf("the README does not start with `make run` and `make test`:\n%s", first)
	}

	clone := filepath.Join(t.TempDir(), "tessera")
	if out, err := exec.Command("git", "clone", "--quiet", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	logPath := filepath.Join(t.TempDir(), "make-run.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command("make", "run", "LISTEN="+addr)
	cmd.Dir = clone
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever happens, nothing is left behind
	logTail := func() string {
		b, _ := os.ReadFile(logPath)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		return string(b)
	}

	base := "http://" + addr
	client := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(15 * time.Minute)
	for {
		resp, err := client.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("make run ended before serving (%v):\n%s", err, logTail())
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not serve within 15 minutes:\n%s", logTail())
		}
	}

	get := func(path string) []byte {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || len(b) == 0 {
			t.Fatalf("GET %s: status %d, %d bytes, %v", path, resp.StatusCode, len(b), err)
		}
		return b
	}
	var style struct {
		Version int
		Layers  []json.RawMessage
	}
	if err := json.Unmarshal(get("/maps/world/style.json"), &style); err != nil || style.Version != 8 || len(style.Layers) == 0 {
		t.Errorf("the demo map's style: version %d, %d layers, %v", style.Version, len(style.Layers), err)
	}
	get("/tiles/world/2/2/1.pbf")
	get("/fonts/Noto%20Sans%20Regular/0-255.pbf")
	var found struct {
		Features []struct {
			Text      string   `json:"text"`
			PlaceType []string `json:"place_type"`
		}
	}
	if err := json.Unmarshal(get("/geocoding/paris.json"), &found); err != nil || len(found.Features) == 0 || found.Features[0].Text != "Paris" {
		t.Errorf("geocoding paris: %+v, %v", found, err)
	}

	// An interrupt (Ctrl-C in the terminal: the whole process group) stops
	// the server and make, and leaves no process behind.
	if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("make run did not stop within 60 s of an interrupt:\n%s", logTail())
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Error("the server still listens after the interrupt")
	}
	stopDeadline := time.Now().Add(10 * time.Second)
	for !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		if time.Now().After(stopDeadline) {
			t.Fatalf("processes of make run are left behind:\n%s", logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if log := logTail(); !strings.Contains(log, "is serving") {
		t.Errorf("make run did not print the serving banner:\n%s", log)
	}
}

// firstCodeBlock returns the first fenced code block of a Markdown text.
func firstCodeBlock(md string) string {
	_, rest, ok := strings.Cut(md, "```")
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "\n") // the info string
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// cleanEnv is the environment of a user's shell: this test's own settings
// (TESSERA_*, the Go test's flags) are left out.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TESSERA_") || strings.HasPrefix(kv, "GOFLAGS=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
