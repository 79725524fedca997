package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/render"
)

// mainEnv makes the test binary run main() with its arguments: the tests
// below run the command as a process, to see its exit status and signals.
const mainEnv = "TESSERA_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		os.Exit(0)
	}
	// The render verb run in this process turns the collector off below
	// the memory limit, which it takes from the machine when none is set:
	// the tests share the process, so it gets a modest limit.
	debug.SetMemoryLimit(1 << 30)
	os.Exit(m.Run())
}

// command returns the tessera command (this test binary running main).
func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	return cmd
}

// squareData makes a data directory with the map "sq" (a red square on
// blue) and the map "bad" (an invalid style).
func squareData(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	for id, doc := range map[string]string{
		"sq": `{"version": 8, "name": "Square",
		"sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-30, -30], [30, -30], [30, 30], [-30, 30], [-30, -30]]]}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#00f"}},
			{"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "#f00"}}]}`,
		"bad": `{"version": 8, "sources": {}, "layers": [{"id": "x", "type": "no-such-type"}]}`,
	} {
		os.MkdirAll(filepath.Join(data, "maps", id), 0o755)
		if err := os.WriteFile(filepath.Join(data, "maps", id, "style.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// TestRenderFlagsRefused runs tessera render with each hostile argument
// list of testdata/render-flags-refused.txt: exit status 1, a message
// naming the flag, no panic, no output file.
func TestRenderFlagsRefused(t *testing.T) {
	raw, err := os.ReadFile("testdata/render-flags-refused.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stylePath := filepath.Join(dir, "s.json")
	os.WriteFile(stylePath, []byte(`{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background"}]}`), 0o644)
	data := squareData(t)
	n := 0
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		spec, want, ok := strings.Cut(line, " => ")
		fields := strings.Fields(spec)
		if !ok || len(fields) < 2 {
			t.Fatalf("bad fixture line %q", line)
		}
		var args []string
		switch fields[0] {
		case "style":
			args = []string{"render", "--style", stylePath, "-o", filepath.Join(dir, "out.png")}
		case "map":
			args = []string{"render", "--data", data, "--map", "sq", "-o", filepath.Join(dir, "out.mbtiles")}
		case "none":
			args = []string{"render"}
		default:
			t.Fatalf("bad fixture line %q", line)
		}
		args = append(args, fields[1:]...)
		cmd := command(args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%s: exit %v, want status 1 (stderr %q)", spec, err, stderr.String())
			continue
		}
		msg := stderr.String()
		if !strings.Contains(msg, want) || strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
			t.Errorf("%s: message %q, want one naming %q", spec, msg, want)
		}
		for _, out := range []string{"out.png", "out.mbtiles", "x.png", "x.gif"} {
			if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
				t.Errorf("%s: %s written", spec, out)
				os.Remove(filepath.Join(dir, out))
			}
		}
	}
	if n < 50 {
		t.Errorf("%d fixture lines read", n)
	}
}

// TestRenderFlagsAccepted: the edges of each range are accepted.
func TestRenderFlagsAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"--zoom", "0", "--pitch", "60", "--bearing", "-720", "--center", "-180,-85.05"},
		{"--zoom", "24", "--pitch", "0", "--center", "180,85.0511"},
		{"--pixel-ratio", "8"},                   // 4096 x 4096 device pixels
		{"--width", "4096", "--height", "4096"},  // render.MaxPixels
		{"--width", "1", "--height", "16777216"}, // ditto
		{"--tile", "22/4194303/0", "--pixel-ratio", "0.01"},
		{"--tile", "0/0/0", "--tile-size", "256", "--pixel-ratio", "8", "--format", "webp", "--quality", "100"},
	} {
		f, err := parseRenderFlags(append([]string{"--style", "s.json", "-o", "o.png"}, args...), io.Discard)
		if err != nil {
			t.Errorf("%v: %v", args, err)
			continue
		}
		if w, h := f.devicePixels(); w*h > render.MaxPixels || w < 1 || h < 1 {
			t.Errorf("%v: %dx%d device pixels", args, w, h)
		}
	}
	f, err := parseRenderFlags([]string{"--data", "d", "--map", "m", "--zooms", "3", "--bbox", "-180,-90,180,90", "--pixel-ratio", "2", "-o", "x.PMTILES"}, io.Discard)
	if err != nil || *f.zooms != [2]int{3, 3} || f.bbox != [4]float64{-180, -90, 180, 90} {
		t.Errorf("one zoom: %+v %v", f, err)
	}
}

// TestRenderSignal interrupts a pre-rendering run with SIGTERM and with
// SIGINT: the command stops with status 1 and a message, and leaves
// neither the output nor its temporary file.
func TestRenderSignal(t *testing.T) {
	data := squareData(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		outDir := t.TempDir()
		cmd := command("render", "--data", data, "--map", "sq", "--zooms", "0-9", "-o", filepath.Join(outDir, "sq.mbtiles"))
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The progress bar's first line: tiles are being written.
		r := bufio.NewReader(stderr)
		var seen bytes.Buffer
		for !strings.Contains(seen.String(), " tiles, ") {
			b, err := r.ReadByte()
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("%v: no progress: %q", sig, seen.String())
			}
			seen.WriteByte(b)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(r)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var werr error
		select {
		case werr = <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the command did not stop", sig)
		}
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: exit %v, want status 1", sig, werr)
		}
		if !strings.Contains(string(rest), "tessera: interrupted by signal") {
			t.Errorf("%v: message %q", sig, rest)
		}
		if des, _ := os.ReadDir(outDir); len(des) != 0 {
			t.Errorf("%v: %d files left, first %s", sig, len(des), des[0].Name())
		}
	}
}

// TestWatchdog: a verb that has not returned within its grace after the
// signal is ended with status 1.
func TestWatchdog(t *testing.T) {
	var buf bytes.Buffer
	code := make(chan int, 1)
	watchdog("render", time.Millisecond, &buf, func(c int) { code <- c })
	if c := <-code; c != 1 || !strings.Contains(buf.String(), "render did not stop") {
		t.Errorf("exit %d, message %q", c, buf.String())
	}
	if stopGrace("render") > time.Second || stopGrace("convert") > time.Second || stopGrace("serve") < 10*time.Second {
		t.Error("grace: render and other one-shot verbs within a second, serve after its shutdown")
	}
}

// TestRenderCancelledWritesNothing: a render whose context is cancelled
// fails and writes no picture.
func TestRenderCancelledWritesNothing(t *testing.T) {
	dir := t.TempDir()
	stylePath := filepath.Join(dir, "s.json")
	os.WriteFile(stylePath, []byte(`{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background"}]}`), 0o644)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted by a test"))
	out := filepath.Join(dir, "o.png")
	if err := run(ctx, []string{"render", "--style", stylePath, "-o", out}, io.Discard, io.Discard); err == nil {
		t.Error("a cancelled render succeeded")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a cancelled render wrote its picture")
	}
}

// TestRenderChecksOnlyItsMap: rendering one map of a data directory reads
// and checks that map only (the invalid map beside it is not looked at),
// and an invalid map is refused with its problems.
func TestRenderChecksOnlyItsMap(t *testing.T) {
	data := squareData(t)
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "t.png")
	if err := run(context.Background(), []string{"render", "--data", data, "--map", "sq", "--tile", "0/0/0", "-o", out}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "bad") {
		t.Errorf("the other map was read: %s", stderr.String())
	}
	err := run(context.Background(), []string{"render", "--data", data, "--map", "bad", "--tile", "0/0/0", "-o", out}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `map "bad" is not usable`) || !strings.Contains(err.Error(), "no-such-type") {
		t.Errorf("invalid map: %v", err)
	}
}

// TestOtherVerbsRefuseBadFlags: the other verbs check their flags before
// doing anything.
func TestOtherVerbsRefuseBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--data", dir, "--log-level", "loud"}, "--log-level"},
		{[]string{"demo", "--data", dir, "--max-zoom", "0"}, "--max-zoom"},
		{[]string{"demo", "--data", dir, "extra"}, "unexpected arguments"},
		{[]string{"geocode", "build", "--out", filepath.Join(dir, "x.tgi"), "--log-level", "x"}, "--log-level"},
		{[]string{"geocode", "build", "--data", "", "--out", ""}, "--data or --out"},
		{[]string{"geocode", "build", "--data", dir, "more"}, "unexpected arguments"},
		{[]string{"geocode", "eval", "--url", "ftp://x"}, "--url"},
		{[]string{"geocode", "eval", "--url", "/relative"}, "--url"},
		{[]string{"geocode", "eval", "--concurrency", "0"}, "--concurrency"},
		{[]string{"geocode", "eval", "--concurrency", "100000"}, "--concurrency"},
		{[]string{"geocode", "eval", "x"}, "unexpected arguments"},
		{[]string{"convert", "--list", "l.txt", "a.mbtiles", "b.pmtiles"}, "--list"},
		{[]string{"serve", "--data", dir, "--pprof", "nonsense"}, "--pprof"},
		{[]string{"serve", "--data", dir, "--log-level", "loud"}, "log_level"},
	} {
		err := run(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error naming %s", tt.args, err, tt.want)
		}
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("refused verbs left %d files in the data directory", len(des))
	}
}

// slowStyle is a style that takes many seconds to draw at 4096x4096: 3000
// squares under twenty blurred wide-line and translucent fill layers.
func slowStyle(t *testing.T, dir string) string {
	t.Helper()
	var feats []string
	for i := range 3000 {
		x, y := float64(i%60)*5.5-165, float64(i/60)*2.8-70
		feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]]}}`,
			x, y, x+10, y, x+10, y+10, x, y+10, x, y))
	}
	layers := []string{`{"id":"bg","type":"background","paint":{"background-color":"#fff"}}`}
	for i := range 10 {
		layers = append(layers, fmt.Sprintf(`{"id":"f%d","type":"fill","source":"g","paint":{"fill-color":"#f00","fill-opacity":0.1}}`, i),
			fmt.Sprintf(`{"id":"l%d","type":"line","source":"g","paint":{"line-width":20,"line-blur":5}}`, i))
	}
	doc := `{"version":8,"center":[0,0],"zoom":2,"sources":{"g":{"type":"geojson","data":{"type":"FeatureCollection","features":[` +
		strings.Join(feats, ",") + `]}}},"layers":[` + strings.Join(layers, ",") + `]}`
	path := filepath.Join(dir, "slow.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRenderSignalOneImage interrupts the drawing of one large picture:
// the command ends within its grace (the renderer stops at the cancelled
// context, or the watchdog ends the process) with status 1 and a
// message, and writes no picture.
func TestRenderSignalOneImage(t *testing.T) {
	dir := t.TempDir()
	style := slowStyle(t, dir)
	prof := filepath.Join(dir, "cpu.prof")
	out := filepath.Join(dir, "big.png")
	cmd := command("render", "--style", style, "--width", "4096", "--height", "4096", "--cpuprofile", prof, "-o", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The profile is created once the flags are read: the signal handler
	// is in place, and the style is being read or drawn.
	for {
		if _, err := os.Stat(prof); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the command ended early: %v %s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the command did not stop")
	}
	// A bound on liveness, not a measure of speed: the watchdog ends the
	// command 0.9 s after the signal; 5 s leaves room for a loaded machine
	// (make test runs every package at once).
	if took := time.Since(signalled); took > 5*time.Second {
		t.Errorf("the command took %v to stop", took)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want status 1", err)
	}
	if msg := stderr.String(); !strings.Contains(msg, "interrupted by signal") && !strings.Contains(msg, "did not stop within") {
		t.Errorf("message %q", msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted render wrote its picture")
	}
}
