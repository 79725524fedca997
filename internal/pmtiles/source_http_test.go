package pmtiles

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// archiveServer serves one archive with http.ServeContent (real Range,
// ETag and If-Match handling); the archive can be swapped.
type archiveServer struct {
	mu            sync.Mutex
	content       []byte
	modTime       time.Time
	ignoreIfMatch bool
	requests      atomic.Int64
}

func (s *archiveServer) set(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content = b
	s.modTime = s.modTime.Add(time.Second)
}

func (s *archiveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	b, mt := s.content, s.modTime
	s.mu.Unlock()
	sum := sha256.Sum256(b)
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sum[:8]))
	if s.ignoreIfMatch {
		r.Header.Del("If-Match")
	}
	http.ServeContent(w, r, "archive.pmtiles", mt, bytes.NewReader(b))
}

func buildArchiveBytes(t *testing.T, tiles []testTile, rootLimit int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.pmtiles")
	writeArchive(t, path, tiles, WriterOptions{TileType: TileTypePNG, Metadata: []byte(`{"name":"http"}`)}, rootLimit)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHTTPSource(t *testing.T) {
	ctx := context.Background()
	tilesA := makeTiles(11, 2000, 6, 10, 5)
	// Archive B: the same addresses with other contents.
	tilesB := make([]testTile, len(tilesA))
	for i, tl := range tilesA {
		tilesB[i] = testTile{tl.z, tl.x, tl.y, append([]byte("B:"), tl.data...)}
	}
	archA := buildArchiveBytes(t, tilesA, 300)
	archB := buildArchiveBytes(t, tilesB, 300)

	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignoreIfMatch=%v", ignore), func(t *testing.T) {
			srv := &archiveServer{modTime: time.Unix(1_700_000_000, 0), ignoreIfMatch: ignore}
			srv.set(archA)
			ts := httptest.NewServer(srv)
			defer ts.Close()

			r, err := OpenLocation(ctx, ts.URL+"/archive.pmtiles", Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := r.Source().Size(); got != int64(len(archA)) {
				t.Fatalf("size %d, want %d", got, len(archA))
			}
			etagA := r.ETag()
			if !strings.HasPrefix(etagA, `"`) {
				t.Fatalf("etag %q", etagA)
			}
			if r.Header().LeafDirsLength == 0 {
				t.Fatal("archive has no leaf directories")
			}
			md, err := r.Metadata(ctx)
			if err != nil || string(md) != `{"name":"http"}` {
				t.Fatalf("metadata %s %v", md, err)
			}
			for _, tl := range tilesA[:300] {
				data, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y)
				if err != nil || !ok || !bytes.Equal(data, tl.data) {
					t.Fatalf("tile %d/%d/%d: %v %v", tl.z, tl.x, tl.y, ok, err)
				}
			}
			// Leaf directories are cached: reading the same tiles again
			// costs one request per tile.
			before := srv.requests.Load()
			for _, tl := range tilesA[:300] {
				if _, _, err := r.Tile(ctx, tl.z, tl.x, tl.y); err != nil {
					t.Fatal(err)
				}
			}
			if n := srv.requests.Load() - before; n != 300 {
				t.Fatalf("%d requests for 300 cached-directory tiles", n)
			}

			// The archive changes: the next read notices, reloads and
			// returns the new content.
			srv.set(archB)
			for i, tl := range tilesB[:300] {
				data, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y)
				if err != nil || !ok || !bytes.Equal(data, tl.data) {
					t.Fatalf("after change, tile %d (%d/%d/%d): ok=%v err=%v got %q", i, tl.z, tl.x, tl.y, ok, err, data[:min(4, len(data))])
				}
			}
			if r.ETag() == etagA || r.ETag() == "" {
				t.Fatalf("etag after change %q (before %q)", r.ETag(), etagA)
			}
			if got := r.Source().Size(); got != int64(len(archB)) {
				t.Fatalf("size after change %d, want %d", got, len(archB))
			}
		})
	}
}

func TestHTTPSourceErrors(t *testing.T) {
	ctx := context.Background()
	arch := buildArchiveBytes(t, makeTiles(3, 50, 2, 5, 0), 0)
	mux := http.NewServeMux()
	mux.HandleFunc("/norange.pmtiles", func(w http.ResponseWriter, r *http.Request) {
		w.Write(arch) // ignores Range: always 200 with the whole body
	})
	mux.HandleFunc("/broken.pmtiles", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/encoded.pmtiles", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, "x", time.Time{}, bytes.NewReader(arch))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()

	if _, err := OpenLocation(ctx, ts.URL+"/encoded.pmtiles", Options{}); err == nil || !strings.Contains(err.Error(), "Content-Encoding") {
		t.Errorf("encoded: err = %v", err)
	}

	if _, err := OpenLocation(ctx, ts.URL+"/missing.pmtiles", Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: err = %v, want fs.ErrNotExist", err)
	}
	if _, err := OpenLocation(ctx, ts.URL+"/broken.pmtiles", Options{}); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("broken: err = %v", err)
	}
	// Without range support the header (offset 0) still works but a tile
	// read cannot.
	r, err := OpenLocation(ctx, ts.URL+"/norange.pmtiles", Options{})
	if err != nil {
		t.Fatalf("norange open: %v", err)
	}
	if _, _, err := r.Tile(ctx, 2, 1, 1); err == nil || !strings.Contains(err.Error(), "range") {
		t.Errorf("norange tile: err = %v", err)
	}
	if _, err := NewHTTPSource("ftp://x/y", HTTPOptions{}); err == nil {
		t.Error("ftp URL accepted")
	}
}

func TestParseContentRange(t *testing.T) {
	cases := []struct {
		in                string
		start, end, total int64
		ok                bool
	}{
		{"bytes 0-99/1000", 0, 99, 1000, true},
		{"bytes 5-5/*", 5, 5, -1, true},
		{"bytes 10-5/100", 0, 0, 0, false},
		{"bytes 0-99/50", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"bytes -1-5/10", 0, 0, 0, false},
		{"bytes 0-1", 0, 0, 0, false},
	}
	for _, c := range cases {
		s, e, tot, err := parseContentRange(c.in)
		if (err == nil) != c.ok || (c.ok && (s != c.start || e != c.end || tot != c.total)) {
			t.Errorf("parseContentRange(%q) = %d %d %d %v", c.in, s, e, tot, err)
		}
	}
}
