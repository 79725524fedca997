package pmtiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/fixtures"
)

const (
	testS3Access = "TESSERATESTKEY"
	testS3Secret = "tessera-test-secret-key"
)

// startVersityGW runs versitygw with the test credentials and returns its
// endpoint URL.
func startVersityGW(t *testing.T) string {
	t.Helper()
	endpoint, _ := fixtures.VersityGW(t, testS3Access, testS3Secret)
	return endpoint
}

// s3Put creates the bucket (key "") or uploads an object, through the SDK.
func s3Put(t *testing.T, endpoint, bucket, key string, body []byte) {
	t.Helper()
	c, err := blob.NewS3Client(blob.S3Config{Endpoint: endpoint, AccessKey: testS3Access, SecretKey: testS3Secret})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if key == "" {
		_, err = c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
	} else {
		_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(body)})
	}
	if err != nil {
		t.Fatalf("PUT %s/%s: %v", bucket, key, err)
	}
}

func TestS3SourceVersityGW(t *testing.T) {
	ctx := context.Background()
	endpoint := startVersityGW(t)
	fixture := fixtures.Path(t, "fixtures/martin/tests/fixtures/pmtiles2/webp2.pmtiles")
	raw, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	s3Put(t, endpoint, "tiles", "", nil)
	key := "maps/web p2.pmtiles" // a space exercises the path encoding
	s3Put(t, endpoint, "tiles", key, raw)

	local, err := OpenLocation(ctx, fixture, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()

	loc := fmt.Sprintf("s3://tiles/%s?endpoint=%s&region=us-east-1", strings.ReplaceAll(key, " ", "%20"), endpoint)
	calls := &blob.Calls{}
	opts := Options{Source: SourceOptions{S3: S3Options{AccessKey: testS3Access, SecretKey: testS3Secret, Calls: calls}}}
	r, err := OpenLocation(ctx, loc, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Header() != local.Header() {
		t.Fatalf("S3 header %+v\nlocal %+v", r.Header(), local.Header())
	}
	if r.Source().Size() != int64(len(raw)) {
		t.Fatalf("size %d, want %d", r.Source().Size(), len(raw))
	}
	mdS3, err1 := r.Metadata(ctx)
	mdLocal, err2 := local.Metadata(ctx)
	if err1 != nil || err2 != nil || !bytes.Equal(mdS3, mdLocal) {
		t.Fatalf("metadata differs: %v %v", err1, err2)
	}
	n := 0
	err = local.Walk(ctx, func(e Entry) error {
		z, x, y, _ := IDToZXY(e.TileID)
		want, _, _ := local.Tile(ctx, z, x, y)
		got, ok, err := r.Tile(ctx, z, x, y)
		if err != nil || !ok || !bytes.Equal(got, want) || !isWebP(got) {
			return fmt.Errorf("tile %d/%d/%d over S3: ok=%v err=%v", z, x, y, ok, err)
		}
		n++
		return nil
	})
	if err != nil || n != 5 {
		t.Fatalf("walk: %v (%d tiles)", err, n)
	}
	// Every read was a ranged GetObject through the SDK, counted.
	if got := calls.Snapshot(); len(got) != 1 || got["GetObject"] == 0 {
		t.Fatalf("S3 calls %v, want GetObject only", got)
	}

	// Replace the object with another archive: the change is noticed.
	other := buildArchiveBytes(t, []testTile{{0, 0, 0, []byte("replaced")}}, 0)
	etag := r.ETag()
	s3Put(t, endpoint, "tiles", key, other)
	data, ok, err := r.Tile(ctx, 0, 0, 0)
	if err != nil || !ok || string(data) != "replaced" {
		t.Fatalf("after replacement: %q %v %v", data, ok, err)
	}
	if r.ETag() == etag {
		t.Fatalf("ETag unchanged after replacement: %s", etag)
	}

	// Wrong credentials are refused by the server.
	bad := Options{Source: SourceOptions{S3: S3Options{AccessKey: testS3Access, SecretKey: "wrong"}}}
	if _, err := OpenLocation(ctx, loc, bad); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("wrong secret: err = %v", err)
	}
	// A missing object.
	if _, err := OpenLocation(ctx, fmt.Sprintf("s3://tiles/nope.pmtiles?endpoint=%s", endpoint), opts); err == nil {
		t.Fatal("missing object opened")
	}
}

// urlRecorder answers every request 404 and keeps the URLs asked for.
type urlRecorder struct{ urls []string }

func (u *urlRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	u.urls = append(u.urls, r.URL.String())
	return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// TestS3URLForms checks where each form of URL sends its requests, and
// that requests without credentials go unsigned.
func TestS3URLForms(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(v, "")
	}
	cases := []struct {
		url, want string
		opts      S3Options
	}{
		{"s3://bucket/a/b.pmtiles", "https://bucket.s3.us-east-1.amazonaws.com/a/b.pmtiles", S3Options{}},
		{"s3://bucket/a/b.pmtiles?region=eu-west-1", "https://bucket.s3.eu-west-1.amazonaws.com/a/b.pmtiles", S3Options{}},
		{"s3://bucket/k%20x.pmtiles?endpoint=http://127.0.0.1:9000", "http://127.0.0.1:9000/bucket/k%20x.pmtiles", S3Options{}},
		{"s3://bucket/k.pmtiles", "http://minio:9000/bucket/k.pmtiles", S3Options{Endpoint: "http://minio:9000"}},
		{"s3://bucket/k.pmtiles?path_style=false", "http://bucket.minio:9000/k.pmtiles", S3Options{Endpoint: "http://minio:9000"}},
	}
	for _, c := range cases {
		rec := &urlRecorder{}
		c.opts.Client = &http.Client{Transport: rec}
		s, err := NewS3SourceURL(ctx, c.url, c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if _, err := s.ReadRange(ctx, 0, 10); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a 404 answered %v, want fs.ErrNotExist", c.url, err)
		}
		if len(rec.urls) != 1 || !strings.HasPrefix(rec.urls[0], c.want+"?") && rec.urls[0] != c.want {
			t.Errorf("%s: requests %v, want one to %s", c.url, rec.urls, c.want)
		}
	}
	for _, bad := range []string{"s3:///key", "s3://bucket", "s3://bucket/k?path_style=maybe", "s3://b/k?endpoint=ftp://x"} {
		if _, err := NewS3SourceURL(ctx, bad, S3Options{}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
