package pmtiles

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestFileSource(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "f.bin")
	content := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runtime.GOOS == "linux" && !s.Mapped() {
		t.Error("file not memory-mapped on linux")
	}
	if s.Size() != int64(len(content)) || s.ETag() == "" {
		t.Fatalf("size %d etag %q", s.Size(), s.ETag())
	}
	cases := []struct {
		off, n int64
		want   []byte
	}{
		{0, 4, content[:4]},
		{5000, 300, content[5000:5300]},
		{int64(len(content)) - 3, 10, content[len(content)-3:]}, // short at the end
		{int64(len(content)), 10, nil},
		{1 << 40, 10, nil},
	}
	for _, c := range cases {
		got, err := s.ReadRange(ctx, c.off, c.n)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("ReadRange(%d,%d) = %d bytes, %v", c.off, c.n, len(got), err)
		}
	}
	for _, bad := range [][2]int64{{-1, 4}, {0, -4}, {0, 2 << 30}} {
		if _, err := s.ReadRange(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("ReadRange%v accepted", bad)
		}
	}
	if _, err := OpenFile(filepath.Dir(path)); err == nil {
		t.Error("a directory opened as a file source")
	}
	if _, err := OpenFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A mapped file truncated by another process must give an error, not crash
// the program with SIGBUS.
func TestFileSourceTruncatedWhileMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.bin")
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Mapped() {
		t.Skip("file not memory-mapped on this system")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadRange(context.Background(), 32<<10, 100); err == nil {
		t.Fatal("read from a truncated mapping succeeded")
	}
}

func TestFileSourceCloseDuringReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.bin")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				_, err := s.ReadRange(context.Background(), int64((i*4096+g)%(1<<20-100)), 100)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if _, err := s.ReadRange(context.Background(), 0, 10); !errors.Is(err, ErrClosed) {
		t.Fatalf("read after close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
