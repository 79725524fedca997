package prerender

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// childEnv names the output a re-run of the test binary pre-renders into
// (see TestMain); the child prints "writing" once tiles are being written
// and goes on until killed.
const childEnv = "TESSERA_PRERENDER_CHILD_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(childEnv); out != "" {
		os.Exit(runChild(out))
	}
	os.Exit(m.Run())
}

func squareMap() *catalog.Map {
	return &catalog.Map{Map: store.Map{ID: "sq", Format: "png"}, Title: "Square", Style: []byte(squareStyle), State: catalog.StateOK, Gen: 1}
}

func runChild(out string) int {
	svc, err := mapimage.New(nil, mapimage.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	told := false
	_, err = Run(context.Background(), svc, squareMap(), out, Options{MinZoom: 0, MaxZoom: 10, Workers: 1, Progress: func(done, total int) {
		if done == 30 && !told {
			told = true
			fmt.Println("writing")
		}
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestKilledRunLeavesNoTileset kills a pre-rendering process (SIGKILL:
// nothing of it runs after) while it writes an MBTiles file into a tiles
// directory: nothing is at the output path, and the catalog of that
// directory lists nothing.
func TestKilledRunLeavesNoTileset(t *testing.T) {
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	out := filepath.Join(tiles, "world.mbtiles")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "writing\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q (%v), stderr %s", line, err, stderr.String())
	}
	// The file being written is beside the output, not at it.
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output path exists while it is written: %v", err)
	}
	temps, _ := filepath.Glob(filepath.Join(tiles, ".world.mbtiles.tmp-*"))
	if len(temps) != 1 {
		t.Errorf("temporary files while writing: %v", temps)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a killed run left a file at the output path: %v", err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat := catalog.New(tiles, db, catalog.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if list := cat.List(); len(list) != 0 {
		t.Errorf("the catalog lists %d tilesets after a killed run, first %q", len(list), list[0].Name)
	}
}

// TestOutputAppearsComplete: while tiles are written the output path holds
// what was there before; afterwards it holds the whole tileset, and no
// temporary file is left. A cancelled run leaves the old file as it was.
func TestOutputAppearsComplete(t *testing.T) {
	svc, err := mapimage.New(nil, mapimage.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ext := range []string{".mbtiles", ".pmtiles"} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out"+ext)
		old := []byte("the previous file")
		os.WriteFile(out, old, 0o644)
		seen := 0
		st, err := Run(ctx, svc, squareMap(), out, Options{MaxZoom: 2, Workers: 1, Progress: func(done, total int) {
			if b, err := os.ReadFile(out); err != nil || string(b) != string(old) {
				t.Errorf("%s: tile %d of %d: the output path changed before the end (%v)", ext, done, total, err)
			}
			seen++
		}})
		if err != nil || st.Tiles != 21 || seen != 21 {
			t.Fatalf("%s: %+v %v after %d tiles", ext, st, err, seen)
		}
		src, err := tilesource.OpenFile(ctx, out)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if data, err := src.Tile(ctx, 2, 1, 1); err != nil || len(data) == 0 {
			t.Errorf("%s: tile 2/1/1: %d bytes, %v", ext, len(data), err)
		}
		src.Close()
		if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v", ext, st.Mode(), err)
		}
		// Cancelled mid-way: the complete file stays, nothing else is left.
		before, _ := os.ReadFile(out)
		cctx, cancel := context.WithCancel(ctx)
		if _, err := Run(cctx, svc, squareMap(), out, Options{MaxZoom: 5, Workers: 1, Progress: func(done, _ int) {
			if done == 5 {
				cancel()
			}
		}}); err == nil {
			t.Errorf("%s: a cancelled run succeeded", ext)
		}
		cancel()
		if after, _ := os.ReadFile(out); string(after) != string(before) {
			t.Errorf("%s: a cancelled run changed the output", ext)
		}
		if des, _ := os.ReadDir(dir); len(des) != 1 {
			var names []string
			for _, de := range des {
				names = append(names, de.Name())
			}
			t.Errorf("%s: files left: %v", ext, names)
		}
	}
}
