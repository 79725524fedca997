package main

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeRoot writes files under a temporary root: path -> contents.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMemoryBudget(t *testing.T) {
	const meminfo = "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"
	const avail = 8000000 << 10
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"nothing known", nil, 0},
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, avail},
		{"cgroup v2 limit", map[string]string{
			"proc/self/cgroup":             "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "268435456\n",
			"sys/fs/cgroup/memory.max":     "max\n",
			"proc/meminfo":                 meminfo,
		}, 256 << 20},
		{"cgroup v2 no limit", map[string]string{
			"proc/self/cgroup":             "0::/box\n",
			"sys/fs/cgroup/box/memory.max": "max\n",
			"proc/meminfo":                 meminfo,
		}, avail},
		{"cgroup v2 parent's limit", map[string]string{
			"proc/self/cgroup":             "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n",
			"sys/fs/cgroup/a/memory.max":   "536870912\n",
			"proc/meminfo":                 meminfo,
		}, 512 << 20},
		{"cgroup v2 namespaced (the path above the mount)", map[string]string{
			"proc/self/cgroup":         "0::/host/slice/box\n",
			"sys/fs/cgroup/memory.max": "1073741824\n",
		}, 1 << 30},
		{"cgroup v1 limit", map[string]string{
			"proc/self/cgroup": "9:pids:/\n4:memory:/process_api/x\n0::/\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "402653184\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":               "9223372036854771712\n",
			"proc/meminfo": meminfo,
		}, 384 << 20},
		{"cgroup v1 unlimited", map[string]string{
			"proc/self/cgroup": "4:cpu,memory:/x\n",
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": "9223372036854771712\n",
			"proc/meminfo": meminfo,
		}, avail},
		{"limit above what is available", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "68719476736\n",
			"proc/meminfo":             meminfo,
		}, avail},
		{"garbage", map[string]string{
			"proc/self/cgroup":         "nonsense\n0::relative\n",
			"sys/fs/cgroup/memory.max": "lots\n",
			"proc/meminfo":             "MemAvailable: many kB\n",
		}, 0},
	} {
		if got := memoryBudget(fakeRoot(t, tt.files)); got != tt.want {
			t.Errorf("%s: budget %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := cliMemoryLimit(fakeRoot(t, nil)); got != cliMemoryFallback {
		t.Errorf("nothing known: limit %d, want the fallback", got)
	}
	root := fakeRoot(t, map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "268435456\n"})
	if got := cliMemoryLimit(root); got != 192<<20 {
		t.Errorf("256 MiB cgroup: limit %d, want 192 MiB", got)
	}
}
