package pmtiles

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// S3Options configures an S3Source. Empty credential fields fall back to the
// environment variables AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN; when no access key is found at all, requests are sent
// unsigned (public buckets).
type S3Options struct {
	// Endpoint is the base URL of the S3 service, e.g. "http://127.0.0.1:7070"
	// or "https://s3.eu-west-1.amazonaws.com". Empty means AWS:
	// $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, or https://s3.<region>.amazonaws.com.
	Endpoint string
	// Region signs the requests; empty means $AWS_REGION, $AWS_DEFAULT_REGION
	// or us-east-1.
	Region       string
	AccessKey    string
	SecretKey    string
	SessionToken string
	// AddressingStyle is "path" (endpoint/bucket/key) or "virtual"
	// (bucket.endpoint/key). Empty means virtual for the AWS default endpoint
	// and path for any other endpoint.
	AddressingStyle string
	// Client sends the requests; nil means a client with a 60 s timeout.
	Client *http.Client
}

// S3Source reads an object of an S3-compatible store with signed (AWS
// Signature Version 4) ranged GET requests. Version tracking works as for
// HTTPSource (ETag and If-Match).
type S3Source struct {
	Bucket, Key string
	r           *remote
	s           *s3Signer
	objectURL   *url.URL
}

// NewS3SourceURL parses s3://bucket/key[?endpoint=URL&region=R&path_style=true|false]
// and returns the source; query parameters override opts.
func NewS3SourceURL(ctx context.Context, rawURL string, opts S3Options) (*S3Source, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: parse S3 URL: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return nil, fmt.Errorf("pmtiles: %q is not an s3://bucket/key URL", rawURL)
	}
	key := strings.TrimPrefix(u.Path, "/")
	q := u.Query()
	if v := q.Get("endpoint"); v != "" {
		opts.Endpoint = v
	}
	if v := q.Get("region"); v != "" {
		opts.Region = v
	}
	if v := q.Get("path_style"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("pmtiles: S3 URL: bad path_style %q", v)
		}
		if b {
			opts.AddressingStyle = "path"
		} else {
			opts.AddressingStyle = "virtual"
		}
	}
	return NewS3Source(ctx, u.Host, key, opts)
}

// NewS3Source returns a source for one object. No request is made until the
// first read.
func NewS3Source(_ context.Context, bucket, key string, opts S3Options) (*S3Source, error) {
	if bucket == "" || key == "" {
		return nil, fmt.Errorf("pmtiles: S3 source needs a bucket and a key")
	}
	if opts.Region == "" {
		opts.Region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
		if opts.Region == "" {
			opts.Region = "us-east-1"
		}
	}
	awsDefault := false
	if opts.Endpoint == "" {
		opts.Endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
		if opts.Endpoint == "" {
			opts.Endpoint = "https://s3." + opts.Region + ".amazonaws.com"
			awsDefault = true
		}
	}
	if opts.AccessKey == "" {
		opts.AccessKey = os.Getenv("AWS_ACCESS_KEY_ID")
		opts.SecretKey = os.Getenv("AWS_SECRET_ACCESS_KEY")
		if opts.SessionToken == "" {
			opts.SessionToken = os.Getenv("AWS_SESSION_TOKEN")
		}
	}
	style := opts.AddressingStyle
	if style == "" {
		style = "path"
		if awsDefault {
			style = "virtual"
		}
	}
	ep, err := url.Parse(opts.Endpoint)
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") || ep.Host == "" {
		return nil, fmt.Errorf("pmtiles: bad S3 endpoint %q", opts.Endpoint)
	}
	obj := &url.URL{Scheme: ep.Scheme, Host: ep.Host}
	base := strings.TrimSuffix(ep.Path, "/")
	switch style {
	case "path":
		obj.Path = base + "/" + bucket + "/" + key
		obj.RawPath = s3Escape(base) + "/" + s3Escape(bucket) + "/" + s3Escape(key)
	case "virtual":
		obj.Host = bucket + "." + ep.Host
		obj.Path = base + "/" + key
		obj.RawPath = s3Escape(base) + "/" + s3Escape(key)
	default:
		return nil, fmt.Errorf("pmtiles: bad S3 addressing style %q (path or virtual)", style)
	}
	client := opts.Client
	if client == nil {
		client = defaultHTTPClient
	}
	s := &S3Source{Bucket: bucket, Key: key, objectURL: obj}
	s.s = &s3Signer{region: opts.Region, accessKey: opts.AccessKey, secretKey: opts.SecretKey, token: opts.SessionToken}
	desc := "s3://" + bucket + "/" + key
	s.r = newRemote(client, desc, func(ctx context.Context, h http.Header) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.objectURL.String(), nil)
		if err != nil {
			return nil, err
		}
		for k, v := range h {
			req.Header[k] = v
		}
		s.s.sign(req, emptySHA256, time.Now())
		return req, nil
	})
	return s, nil
}

// ReadRange implements RangeSource.
func (s *S3Source) ReadRange(ctx context.Context, offset, length int64) ([]byte, error) {
	return s.r.readRange(ctx, offset, length)
}

// ETag implements RangeSource.
func (s *S3Source) ETag() string { return s.r.etagValue() }

// Size implements RangeSource (-1 before the first read).
func (s *S3Source) Size() int64 { return s.r.sizeValue() }

// Close implements RangeSource.
func (s *S3Source) Close() error { return nil }

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// s3Escape percent-encodes a path the way SigV4 expects for S3: every byte
// except unreserved characters and '/'.
func s3Escape(p string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// s3Signer signs requests with AWS Signature Version 4.
type s3Signer struct {
	region, accessKey, secretKey, token string
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sign adds the SigV4 headers to req. payloadHash is the hex SHA-256 of the
// body (or "UNSIGNED-PAYLOAD"). Without an access key the request is left
// unsigned.
func (s *s3Signer) sign(req *http.Request, payloadHash string, now time.Time) {
	if s.accessKey == "" {
		return
	}
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	day := now.Format("20060102")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if s.token != "" {
		req.Header.Set("X-Amz-Security-Token", s.token)
	}
	host := req.URL.Host
	if req.Host != "" {
		host = req.Host
	}
	// Signed headers: host and every x-amz-* header, plus range/if-match.
	hdrs := map[string]string{"host": host}
	for k, v := range req.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") || lk == "range" || lk == "if-match" || lk == "content-type" || lk == "content-md5" {
			hdrs[lk] = strings.TrimSpace(strings.Join(v, ","))
		}
	}
	names := make([]string, 0, len(hdrs))
	for k := range hdrs {
		names = append(names, k)
	}
	sort.Strings(names)
	var canonHdrs strings.Builder
	for _, k := range names {
		canonHdrs.WriteString(k + ":" + hdrs[k] + "\n")
	}
	signed := strings.Join(names, ";")
	canonReq := strings.Join([]string{
		req.Method,
		req.URL.EscapedPath(),
		canonicalQuery(req.URL.Query()),
		canonHdrs.String(),
		signed,
		payloadHash,
	}, "\n")
	scope := day + "/" + s.region + "/s3/aws4_request"
	sum := sha256.Sum256([]byte(canonReq))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	k := hmacSHA256([]byte("AWS4"+s.secretKey), day)
	k = hmacSHA256(k, s.region)
	k = hmacSHA256(k, "s3")
	k = hmacSHA256(k, "aws4_request")
	sig := hex.EncodeToString(hmacSHA256(k, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+s.accessKey+"/"+scope+
		", SignedHeaders="+signed+", Signature="+sig)
}

func canonicalQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			parts = append(parts, queryEscape(k)+"="+queryEscape(v))
		}
	}
	return strings.Join(parts, "&")
}

func queryEscape(s string) string {
	return strings.ReplaceAll(s3Escape(s), "/", "%2F")
}
