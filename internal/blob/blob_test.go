package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// target is a store with what a test needs to drive it like a client.
type target struct {
	Store
	base  string // prefix of relative part URLs
	files func() []string
}

func localTarget(t *testing.T, now func() time.Time) (*Local, target) {
	dir := t.TempDir()
	l, err := NewLocal(dir, LocalOptions{Secret: []byte("0123456789abcdef0123"), PartPath: "/parts", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/parts/")
		id, num, _ := strings.Cut(rest, "/")
		n, _ := strconv.Atoi(num)
		etag, err := l.PutPart(r.Context(), id, n, r.URL.Query(), r.Body)
		switch {
		case errors.Is(err, ErrForbidden):
			w.WriteHeader(http.StatusForbidden)
		case err != nil:
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.Header().Set("ETag", etag)
		}
	}))
	t.Cleanup(srv.Close)
	return l, target{Store: l, base: srv.URL, files: func() []string { return files(t, dir) }}
}

func s3Target(t testing.TB, calls ...*Calls) target {
	endpoint, root := fixtures.VersityGW(t, "testkey", "testsecret1234")
	if err := os.Mkdir(filepath.Join(root, "bucket"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewS3("s3://bucket/uploads?endpoint="+endpoint+"&region=us-east-1&path_style=true", S3Options{AccessKey: "testkey", SecretKey: "testsecret1234", Calls: firstCalls(calls)})
	if err != nil {
		t.Fatal(err)
	}
	return target{Store: s, files: func() []string { return files(t, root) }}
}

func firstCalls(c []*Calls) *Calls {
	if len(c) == 0 {
		return nil
	}
	return c[0]
}

// files lists the regular files under dir.
func files(t testing.TB, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// put PUTs a part like a browser would: no credentials.
func put(t *testing.T, tg target, u string, data []byte) (int, string) {
	if strings.HasPrefix(u, "/") {
		u = tg.base + u
	}
	req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(data))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("ETag")
}

func TestMultipartLocal(t *testing.T) {
	_, tg := localTarget(t, nil)
	testMultipart(t, tg)
}

func TestMultipartS3(t *testing.T) { testMultipart(t, s3Target(t)) }

func testMultipart(t *testing.T, tg target) {
	ctx := context.Background()
	data := make([]byte, 2*MinPartSize+1234)
	rand.Read(data)
	chunks := [][]byte{data[:MinPartSize], data[MinPartSize : 2*MinPartSize], data[2*MinPartSize:]}
	key := "ingests/one"
	up, err := tg.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var parts []Part
	for i, c := range chunks {
		u, err := tg.PartURL(ctx, key, up, i+1, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 { // a tampered URL is refused
			bad := strings.Replace(strings.Replace(u, "/1?", "/2?", 1), "partNumber=1&", "partNumber=2&", 1)
			if bad == u {
				t.Fatalf("cannot tamper with %s", u)
			}
			// A small body: a server may refuse before reading it.
			if code, _ := put(t, tg, bad, c[:1]); code != http.StatusForbidden {
				t.Errorf("tampered URL: status %d, want 403", code)
			}
		}
		code, etag := put(t, tg, u, c)
		if code != http.StatusOK || etag == "" {
			t.Fatalf("part %d: status %d, etag %q", i+1, code, etag)
		}
		parts = append(parts, Part{Number: i + 1, ETag: etag})
	}
	// A wrong ETag is the client's mistake; the upload stays open.
	wrong := append([]Part(nil), parts...)
	wrong[1].ETag = `"00000000000000000000000000000000"`
	if err := tg.Complete(ctx, key, up, wrong); !errors.Is(err, ErrParts) {
		t.Errorf("wrong etag: %v, want ErrParts", err)
	}
	if err := tg.Complete(ctx, key, up, []Part{parts[1], parts[0]}); !errors.Is(err, ErrParts) {
		t.Errorf("out of order: %v, want ErrParts", err)
	}
	if err := tg.Complete(ctx, key, up, parts); err != nil {
		t.Fatal(err)
	}
	// Completing again: S3 services may repeat their answer or have
	// forgotten the upload; neither is a failure of the object.
	if err := tg.Complete(ctx, key, up, parts); err != nil && !errors.Is(err, ErrNoUpload) {
		t.Errorf("second complete: %v, want nil or ErrNoUpload", err)
	}
	if n, err := tg.Size(ctx, key); err != nil || n != int64(len(data)) {
		t.Fatalf("size %d, %v", n, err)
	}
	dst := filepath.Join(t.TempDir(), "got")
	if err := tg.Download(ctx, key, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Fatal("downloaded bytes differ")
	}
	if err := tg.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Size(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}

	// An aborted upload leaves nothing behind.
	up2, err := tg.CreateMultipart(ctx, "ingests/two")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := tg.PartURL(ctx, "ingests/two", up2, 1, time.Hour)
	if code, _ := put(t, tg, u, chunks[2]); code != http.StatusOK {
		t.Fatalf("part: %d", code)
	}
	if len(tg.files()) == 0 {
		t.Fatal("the part is stored nowhere")
	}
	if err := tg.Abort(ctx, "ingests/two", up2); err != nil {
		t.Fatal(err)
	}
	if err := tg.Abort(ctx, "ingests/two", up2); !errors.Is(err, ErrNoUpload) {
		t.Errorf("second abort: %v, want ErrNoUpload", err)
	}
	if code, _ := put(t, tg, u, chunks[2]); code == http.StatusOK {
		t.Error("a part was taken after the abort")
	}
	for _, f := range tg.files() {
		if !strings.Contains(f, "/.vgwlocks/") { // versitygw's own lock files
			t.Errorf("left behind: %s", f)
		}
	}
}

func TestLocalExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l, tg := localTarget(t, func() time.Time { return now })
	ctx := context.Background()
	up, _ := l.CreateMultipart(ctx, "k")
	u, _ := l.PartURL(ctx, "k", up, 1, time.Minute)
	now = now.Add(61 * time.Second)
	if code, _ := put(t, tg, u, []byte("x")); code != http.StatusForbidden {
		t.Errorf("expired URL: status %d, want 403", code)
	}
	u, _ = l.PartURL(ctx, "k", up, 1, time.Minute)
	if code, _ := put(t, tg, u, []byte("x")); code != http.StatusOK {
		t.Errorf("fresh URL: status %d", code)
	}
	if _, err := l.CreateMultipart(ctx, "../x"); err == nil {
		t.Error("a key leaving the directory was taken")
	}
}

func TestS3PresignedExpiry(t *testing.T) {
	tg := s3Target(t)
	ctx := context.Background()
	up, err := tg.CreateMultipart(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := tg.PartURL(ctx, "k", up, 1, time.Second)
	time.Sleep(2100 * time.Millisecond) // let the URL's lifetime pass
	if code, _ := put(t, tg, u, []byte("x")); code != http.StatusForbidden {
		t.Errorf("expired URL: status %d, want 403", code)
	}
	tg.Abort(ctx, "k", up)
}

// FuzzPutPart: a part URL's query and path, however mangled, are refused
// with ErrForbidden unless they are exactly what PartURL signed; never a
// panic.
func FuzzPutPart(f *testing.F) {
	// Every fuzzing process makes the same upload, signed at the same time.
	dir := f.TempDir()
	at := time.Unix(1_800_000_000, 0)
	l, err := NewLocal(dir, LocalOptions{Secret: []byte("0123456789abcdef0123"), Now: func() time.Time { return at }})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	up := "0123456789abcdef0123456789abcdef"
	if err := os.MkdirAll(filepath.Join(dir, "multipart", up), 0o755); err != nil {
		f.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "multipart", up, "key"), []byte("k"), 0o644)
	good, _ := l.PartURL(ctx, "k", up, 3, time.Hour)
	gq := good[strings.Index(good, "?")+1:]
	gqValues, _ := url.ParseQuery(gq)
	f.Add(up, 3, gq)
	f.Add(up, 4, gq)
	f.Add("../../etc", 1, "expires=99999999999&signature=00")
	f.Add(up, 3, "expires=-1&signature=")
	f.Fuzz(func(t *testing.T, id string, part int, rawQuery string) {
		q, _ := url.ParseQuery(rawQuery)
		_, err := l.PutPart(ctx, id, part, q, strings.NewReader("x"))
		if id == up && part == 3 && q.Get("expires") == gqValues.Get("expires") && q.Get("signature") == gqValues.Get("signature") {
			if err != nil {
				t.Fatalf("the signed URL was refused: %v", err)
			}
			return
		}
		if !errors.Is(err, ErrForbidden) {
			t.Fatalf("id %q part %d query %q: %v, want ErrForbidden", id, part, rawQuery, err)
		}
	})
}
