package pmtiles

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

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

// s3Put sends a signed PUT (bucket creation when key is "", else an object
// upload).
func s3Put(t *testing.T, endpoint, bucket, key string, body []byte) {
	t.Helper()
	u := endpoint + "/" + bucket
	if key != "" {
		u += "/" + s3Escape(key)
	}
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	s := &s3Signer{region: "us-east-1", accessKey: testS3Access, secretKey: testS3Secret}
	s.sign(req, hex.EncodeToString(sum[:]), time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT %s: %s %s", u, resp.Status, msg)
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
	opts := Options{Source: SourceOptions{S3: S3Options{AccessKey: testS3Access, SecretKey: testS3Secret}}}
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

func TestS3URLForms(t *testing.T) {
	ctx := context.Background()
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
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
		s, err := NewS3SourceURL(ctx, c.url, c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if got := s.objectURL.String(); got != c.want {
			t.Errorf("%s: object URL %s, want %s", c.url, got, c.want)
		}
	}
	for _, bad := range []string{"s3:///key", "s3://bucket", "s3://bucket/k?path_style=maybe", "s3://b/k?endpoint=ftp://x"} {
		if _, err := NewS3SourceURL(ctx, bad, S3Options{}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestSigV4KnownAnswer checks the signer against the GET Object example of
// the AWS S3 SigV4 documentation ("Example: GET Object", range bytes=0-9).
func TestSigV4KnownAnswer(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "https://examplebucket.s3.amazonaws.com/test.txt", nil)
	req.Header.Set("Range", "bytes=0-9")
	s := &s3Signer{region: "us-east-1", accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	s.sign(req, emptySHA256, time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC))
	want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
		"SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
		"Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
	if got := req.Header.Get("Authorization"); got != want {
		t.Fatalf("Authorization:\n got %s\nwant %s", got, want)
	}
}
