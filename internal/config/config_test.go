package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadLayers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("listen: 0.0.0.0:9000\ntile_cache_mb: 8\npublic_url: https://maps.example.com\ncors_origins: [https://a.example]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", dir, env(map[string]string{"TESSERA_TILE_CACHE_MB": "16", "TESSERA_READ_TIMEOUT": "5s", "TESSERA_WATCH": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != dir {
		t.Errorf("DataDir = %q", c.DataDir)
	}
	if c.Listen != "0.0.0.0:9000" {
		t.Errorf("Listen from the file = %q", c.Listen)
	}
	if c.TileCacheMB != 16 {
		t.Errorf("TileCacheMB: environment should win over the file, got %d", c.TileCacheMB)
	}
	if c.ReadTimeout != 5*time.Second || c.Watch {
		t.Errorf("ReadTimeout = %v, Watch = %v", c.ReadTimeout, c.Watch)
	}
	if len(c.CORSOrigins) != 1 || c.CORSOrigins[0] != "https://a.example" {
		t.Errorf("CORSOrigins = %v", c.CORSOrigins)
	}
	if err := c.Set("listen", "127.0.0.1:1"); err != nil || c.Listen != "127.0.0.1:1" {
		t.Errorf("Set: %v %q", err, c.Listen)
	}
	if err := c.Set("nope", "1"); err == nil {
		t.Error("Set of an unknown key: want an error")
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("lisen: x\n"), 0o644)
	if _, err := Load(bad, dir, env(nil)); err == nil || !strings.Contains(err.Error(), "lisen") {
		t.Errorf("unknown key: err = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), dir, env(nil)); err == nil {
		t.Error("missing explicit file: want an error")
	}
	if _, err := Load("", dir, env(map[string]string{"TESSERA_MAX_UPLOAD_MB": "x"})); err == nil {
		t.Error("bad number in the environment: want an error")
	}
	if _, err := Load("", dir, env(map[string]string{"TESSERA_PUBLIC_URL": "ftp://x"})); err == nil {
		t.Error("bad public_url: want an error")
	}
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Load(empty, dir, env(nil)); err != nil {
		t.Errorf("empty file: %v", err)
	}
}

func TestKeysMatchDocs(t *testing.T) {
	if len(Keys()) < 10 {
		t.Fatalf("Keys() = %v", Keys())
	}
	for _, k := range Keys() {
		if k == "" || strings.ToLower(k) != k {
			t.Errorf("bad key %q", k)
		}
	}
}

func TestRelativeDataDirIsResolved(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	for _, tc := range []struct{ flag, env string }{{"data", ""}, {"", "rel/data"}} {
		c, err := Load("", tc.flag, func(k string) string {
			if k == "TESSERA_DATA_DIR" {
				return tc.env
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(work, tc.flag)
		if tc.env != "" {
			want = filepath.Join(work, tc.env)
		}
		if c.DataDir != want {
			t.Errorf("flag %q env %q: DataDir = %q, want %q", tc.flag, tc.env, c.DataDir, want)
		}
	}
}

func TestTrustedProxies(t *testing.T) {
	c := Default()
	if len(c.TrustedProxies) != 0 {
		t.Errorf("default trusted proxies %v, want none", c.TrustedProxies)
	}
	c.TrustedProxies = []string{"10.0.0.0/8", "127.0.0.1", " ::1 ", "::ffff:192.0.2.1"}
	got, err := c.Proxies()
	if err != nil || len(got) != 4 || got[1].String() != "127.0.0.1/32" || got[2].String() != "::1/128" || got[3].String() != "192.0.2.1/32" {
		t.Errorf("Proxies() = %v, %v", got, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "example.com"} {
		c.TrustedProxies = []string{bad}
		if c.Validate() == nil {
			t.Errorf("trusted_proxies %q accepted", bad)
		}
	}
	env := func(k string) string {
		if k == "TESSERA_TRUSTED_PROXIES" {
			return "10.0.0.1,10.0.0.2"
		}
		return ""
	}
	if c, err := Load("", t.TempDir(), env); err != nil || len(c.TrustedProxies) != 2 {
		t.Errorf("from the environment: %v, %v", c.TrustedProxies, err)
	}
}

// TestOnlyMapsIsNoSetting: the field commands set is read from neither the
// file nor the environment, and is no key.
func TestOnlyMapsIsNoSetting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("only_maps: [a]\n"), 0o644)
	if _, err := Load(file, dir, env(nil)); err == nil {
		t.Error("only_maps accepted in the file")
	}
	c, err := Load("", dir, env(map[string]string{"TESSERA_-": "x", "TESSERA_ONLY_MAPS": "y"}))
	if err != nil || c.OnlyMaps != nil {
		t.Errorf("OnlyMaps %v from the environment (%v)", c.OnlyMaps, err)
	}
	if slices.Contains(Keys(), "-") || c.Set("-", "x") == nil {
		t.Error(`"-" is a setting`)
	}
}
