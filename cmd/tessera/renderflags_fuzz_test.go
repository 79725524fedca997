package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/staticmap"
)

// FuzzRenderFlags gives the render verb's flags any values: the reader
// never panics, and what it accepts is in range.
func FuzzRenderFlags(f *testing.F) {
	f.Add("512", "512", "1", "", "", "", "", "", "", "", "")
	f.Add("100", "80", "1e6", "NaN,NaN", "NaN", "85", "Inf", "1/1/1x", "0-3x", "-1,-1,1,1", "300")
	f.Add("4096", "4096", "1", "-180,85.0511", "24", "60", "-720", "", "", "", "")
	f.Add("1", "1", "0.001", "0,0", "0", "0", "0", "22/4194303/4194303", "", "", "512")
	f.Add("1", "1", "2", "", "", "", "", "", "0-22", "-180,-90,180,90", "256")
	f.Fuzz(func(t *testing.T, width, height, ratio, center, zoom, pitch, bearing, tile, zooms, bbox, tileSize string) {
		args := []string{"--width", width, "--height", height, "--pixel-ratio", ratio, "-o", "o.png"}
		if zooms != "" {
			args = []string{"--data", "d", "--map", "m", "--zooms", zooms, "--pixel-ratio", ratio, "-o", "o.mbtiles"}
			if bbox != "" {
				args = append(args, "--bbox", bbox)
			}
		} else {
			args = append(args, "--style", "s.json")
			for _, kv := range [][2]string{{"--center", center}, {"--zoom", zoom}, {"--pitch", pitch}, {"--bearing", bearing}, {"--tile", tile}} {
				if kv[1] != "" {
					args = append(args, kv[0], kv[1])
				}
			}
		}
		if tileSize != "" {
			args = append(args, "--tile-size", tileSize)
		}
		r, err := parseRenderFlags(args, io.Discard)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "render: ") && !strings.Contains(err.Error(), "invalid value") && !strings.Contains(err.Error(), "flag") {
				t.Fatalf("%q: message %q", args, err)
			}
			return
		}
		if !(r.ratio > 0 && r.ratio <= maxPixelRatio) {
			t.Fatalf("%q: ratio %v accepted", args, r.ratio)
		}
		if r.zooms != nil {
			if r.zooms[0] < 0 || r.zooms[1] > mapimage.MaxZoom || r.zooms[0] > r.zooms[1] || (r.ratio != 1 && r.ratio != 2) {
				t.Fatalf("%q: zooms %v ratio %v accepted", args, *r.zooms, r.ratio)
			}
			for _, v := range r.bbox {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%q: bbox %v accepted", args, r.bbox)
				}
			}
			return
		}
		if w, h := r.devicePixels(); w < 1 || h < 1 || w*h > render.MaxPixels {
			t.Fatalf("%q: %dx%d device pixels accepted", args, w, h)
		}
		if c := r.center; c != nil && !(c[0] >= -180 && c[0] <= 180 && c[1] >= -geo.MaxLat && c[1] <= geo.MaxLat) {
			t.Fatalf("%q: center %v accepted", args, *c)
		}
		if z := r.zoom; z != nil && !(*z >= 0 && *z <= staticmap.MaxZoom) {
			t.Fatalf("%q: zoom %v accepted", args, *z)
		}
		if p := r.pitch; p != nil && !(*p >= 0 && *p <= maxPitch) {
			t.Fatalf("%q: pitch %v accepted", args, *p)
		}
		if b := r.bearing; b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
			t.Fatalf("%q: bearing %v accepted", args, *b)
		}
		if tl := r.tile; tl != nil && (tl[0] < 0 || tl[0] > mapimage.MaxZoom || tl[1] < 0 || tl[2] < 0 || tl[1] >= 1<<tl[0] || tl[2] >= 1<<tl[0]) {
			t.Fatalf("%q: tile %v accepted", args, *tl)
		}
	})
}

// FuzzMemoryBudget reads any /proc/self/cgroup, cgroup limit and
// /proc/meminfo: never a panic, never a negative budget.
func FuzzMemoryBudget(f *testing.F) {
	f.Add("0::/box\n", "268435456\n", "MemAvailable: 8000 kB\n")
	f.Add("4:memory:/a/b\n", "9223372036854771712\n", "MemAvailable:\n")
	f.Add("0::/../../etc\n", "max", "MemAvailable: -5 kB")
	f.Add("::\n0:::\n", "-1", "MemAvailable: 99999999999999999999 kB")
	f.Fuzz(func(t *testing.T, cgroup, limit, meminfo string) {
		root := t.TempDir()
		write := func(rel, body string) {
			p := filepath.Join(root, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
		write("proc/self/cgroup", cgroup)
		write("proc/meminfo", meminfo)
		write("sys/fs/cgroup/memory.max", limit)
		write("sys/fs/cgroup/box/memory.max", limit)
		write("sys/fs/cgroup/memory/memory.limit_in_bytes", limit)
		if b := memoryBudget(root); b < 0 {
			t.Fatalf("budget %d", b)
		}
		if l := cliMemoryLimit(root); l <= 0 {
			t.Fatalf("limit %d", l)
		}
	})
}
