package opendata

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name     string
	typ      byte
	body     string
	mode     int64
	linkname string
}

func tarGz(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: mode, Linkname: e.linkname}
		if e.typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractTarGz(t *testing.T) {
	data := tarGz(t, []entry{
		{name: "package/", typ: tar.TypeDir},
		{name: "package/package.json", typ: tar.TypeReg, body: `{"name":"x"}`},
		{name: "package/bin/run.sh", typ: tar.TypeReg, body: "#!/bin/sh\n", mode: 0o755},
		{name: "package/./data//deep/file.txt", typ: tar.TypeReg, body: "deep"},
		{name: "package/link", typ: tar.TypeSymlink, linkname: "/etc/passwd"},
		{name: "package/hard", typ: tar.TypeLink, linkname: "package/package.json"},
	})
	dir := t.TempDir()
	if err := ExtractTarGz(context.Background(), bytes.NewReader(data), dir, 1); err != nil {
		t.Fatalf("ExtractTarGz: %v", err)
	}
	tests := []struct {
		path, body string
		exec       bool
	}{
		{"package.json", `{"name":"x"}`, false},
		{"bin/run.sh", "#!/bin/sh\n", true},
		{"data/deep/file.txt", "deep", false},
	}
	for _, tc := range tests {
		b, err := os.ReadFile(filepath.Join(dir, tc.path))
		if err != nil || string(b) != tc.body {
			t.Errorf("%s = %q, %v; want %q", tc.path, b, err, tc.body)
			continue
		}
		fi, _ := os.Stat(filepath.Join(dir, tc.path))
		if got := fi.Mode().Perm()&0o100 != 0; got != tc.exec {
			t.Errorf("%s executable = %v, want %v", tc.path, got, tc.exec)
		}
	}
	for _, skipped := range []string{"link", "hard"} {
		if _, err := os.Lstat(filepath.Join(dir, skipped)); !os.IsNotExist(err) {
			t.Errorf("link entry %s was written (err %v)", skipped, err)
		}
	}
}

func TestExtractTarGzRefusesTraversal(t *testing.T) {
	tests := []struct {
		name  string
		entry string
	}{
		{"parent", "../evil.txt"},
		{"parent after strip", "package/../../evil.txt"},
		{"nested parent", "package/a/../../../evil.txt"},
		{"absolute", "/tmp/evil.txt"},
		{"backslash", `package\..\..\evil.txt`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			data := tarGz(t, []entry{
				{name: "package/ok.txt", typ: tar.TypeReg, body: "ok"},
				{name: tc.entry, typ: tar.TypeReg, body: "evil"},
			})
			err := ExtractTarGz(context.Background(), bytes.NewReader(data), dir, 1)
			if !errors.Is(err, ErrUnsafePath) {
				t.Fatalf("err = %v, want ErrUnsafePath", err)
			}
			if _, err := os.Stat(filepath.Join(parent, "evil.txt")); !os.IsNotExist(err) {
				t.Errorf("evil.txt written outside the destination")
			}
		})
	}
}

func TestExtractTarGzBadInput(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"not gzip", []byte("plain text")},
		{"truncated", tarGz(t, []entry{{name: "package/a", typ: tar.TypeReg, body: strings.Repeat("x", 5000)}})[:60]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := ExtractTarGz(context.Background(), bytes.NewReader(tc.data), t.TempDir(), 1); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestEntryPath(t *testing.T) {
	tests := []struct {
		name  string
		strip int
		want  string
		bad   bool
	}{
		{"package/a/b.js", 1, "a/b.js", false},
		{"package/", 1, "", false},
		{"package", 1, "", false},
		{"./package/x", 1, "x", false},
		{"a/b", 0, "a/b", false},
		{"a/../b", 0, "", true},
		{"/a", 0, "", true},
		{"a\x00b", 0, "", true},
	}
	for _, tc := range tests {
		got, err := entryPath(tc.name, tc.strip)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("entryPath(%q, %d) = %q, %v; want %q, bad=%v", tc.name, tc.strip, got, err, tc.want, tc.bad)
		}
	}
}

func TestExactSpec(t *testing.T) {
	tests := []struct {
		spec, name, version string
		ok                  bool
	}{
		{"is-number@7.0.0", "is-number", "7.0.0", true},
		{"@scope/pkg@1.2.3-beta.1", "@scope/pkg", "1.2.3-beta.1", true},
		{"world-atlas@2", "", "", false},
		{"world-atlas@^2.0.0", "", "", false},
		{"world-atlas", "", "", false},
		{"world-atlas@latest", "", "", false},
		{"@scope/pkg", "", "", false},
	}
	for _, tc := range tests {
		name, version, ok := exactSpec(tc.spec)
		if name != tc.name || version != tc.version || ok != tc.ok {
			t.Errorf("exactSpec(%q) = %q %q %v, want %q %q %v", tc.spec, name, version, ok, tc.name, tc.version, tc.ok)
		}
	}
}

func requireTool(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s not found and TESSERA_REQUIRE_TOOLS=1", n)
			}
			t.Skipf("%s not installed", n)
		}
	}
}

func noTempLeftovers(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary folder %s left in %s", e.Name(), dir)
		}
	}
}

func TestNPMReal(t *testing.T) {
	requireTool(t, "npm")
	ctx := context.Background()
	cache := t.TempDir()
	for _, spec := range []string{"is-number@7.0.0", "is-number@7"} {
		dir, err := NPM(ctx, cache, spec)
		if err != nil {
			t.Fatalf("NPM(%s): %v", spec, err)
		}
		if want := filepath.Join(cache, "npm", "is-number@7.0.0"); dir != want {
			t.Errorf("NPM(%s) dir = %s, want %s", spec, dir, want)
		}
		var pkg struct{ Name, Version string }
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil || json.Unmarshal(b, &pkg) != nil {
			t.Fatalf("package.json: %v", err)
		}
		if pkg.Name != "is-number" || pkg.Version != "7.0.0" {
			t.Errorf("package.json says %s@%s", pkg.Name, pkg.Version)
		}
		if _, err := os.Stat(filepath.Join(dir, "index.js")); err != nil {
			t.Errorf("index.js missing: %v", err)
		}
	}
	noTempLeftovers(t, filepath.Join(cache, "npm"))

	// Both specs are now cached: they must resolve without running npm.
	t.Setenv("PATH", t.TempDir())
	for _, spec := range []string{"is-number@7.0.0", "is-number@7"} {
		if _, err := NPM(ctx, cache, spec); err != nil {
			t.Errorf("cached NPM(%s) without npm on PATH: %v", spec, err)
		}
	}
	if _, err := NPM(ctx, cache, "is-number@6"); !errors.Is(err, ErrToolMissing) {
		t.Errorf("uncached spec without npm: err = %v, want ErrToolMissing", err)
	}
}

func TestNPMBadSpec(t *testing.T) {
	for _, spec := range []string{"", "  ", "--registry=http://evil"} {
		if _, err := NPM(context.Background(), t.TempDir(), spec); err == nil {
			t.Errorf("NPM(%q): no error", spec)
		}
	}
}

func TestDebianReal(t *testing.T) {
	requireTool(t, "apt-get", "apt-cache", "dpkg-deb")
	ctx := context.Background()
	if _, err := debCandidate(ctx, "hello"); err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatalf("apt knows no candidate for hello: %v", err)
		}
		t.Skipf("apt package lists unavailable (run apt-get update): %v", err)
	}
	cache := t.TempDir()
	dir, err := Debian(ctx, cache, "hello")
	if err != nil {
		t.Fatalf("Debian(hello): %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "usr", "bin", "hello")); err != nil {
		t.Errorf("usr/bin/hello missing from %s: %v", dir, err)
	}
	again, err := Debian(ctx, cache, "hello")
	if err != nil || again != dir {
		t.Errorf("second Debian(hello) = %s, %v; want %s", again, err, dir)
	}
	noTempLeftovers(t, filepath.Join(cache, "deb"))
}

func TestDebianBadName(t *testing.T) {
	for _, pkg := range []string{"", "a", "../etc", "-o=Dir::Cache=/", "Hello", "a b"} {
		if _, err := Debian(context.Background(), t.TempDir(), pkg); err == nil {
			t.Errorf("Debian(%q): no error", pkg)
		}
	}
}

// TestRelativeCache fetches with a relative cache folder, as `tessera demo
// --data data` does: the tools run inside the cache, so a relative path must
// not be resolved a second time from there.
func TestRelativeCache(t *testing.T) {
	ctx := context.Background()
	t.Run("npm", func(t *testing.T) {
		requireTool(t, "npm")
		work := t.TempDir()
		t.Chdir(work)
		dir, err := NPM(ctx, filepath.Join("data", "cache"), "is-number@7.0.0")
		if err != nil {
			t.Fatalf("NPM with a relative cache: %v", err)
		}
		if want := filepath.Join(work, "data", "cache", "npm", "is-number@7.0.0"); dir != want {
			t.Errorf("dir = %s, want %s", dir, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
			t.Error(err)
		}
	})
	t.Run("debian", func(t *testing.T) {
		requireTool(t, "apt-get", "apt-cache", "dpkg-deb")
		if _, err := debCandidate(ctx, "hello"); err != nil {
			t.Skipf("apt package lists unavailable: %v", err)
		}
		work := t.TempDir()
		t.Chdir(work)
		dir, err := Debian(ctx, "cache", "hello")
		if err != nil {
			t.Fatalf("Debian with a relative cache: %v", err)
		}
		if !filepath.IsAbs(dir) || !strings.HasPrefix(dir, filepath.Join(work, "cache", "deb")) {
			t.Errorf("dir = %s, want inside %s", dir, filepath.Join(work, "cache", "deb"))
		}
		if _, err := os.Stat(filepath.Join(dir, "usr", "bin", "hello")); err != nil {
			t.Error(err)
		}
	})
}
