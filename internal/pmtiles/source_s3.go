package pmtiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tesseramaps/tessera/internal/blob"
)

// S3Options configures an S3Source. Empty credential fields fall back to the
// environment variables AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN; when no access key is found at all, requests are sent
// unsigned (public buckets).
type S3Options struct {
	// Endpoint is the base URL of the S3 service, e.g. "http://127.0.0.1:7070"
	// or "https://s3.eu-west-1.amazonaws.com". Empty means AWS:
	// $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, or AWS's endpoint of the region.
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
	// Calls, when not nil, counts the S3 calls.
	Calls *blob.Calls
}

// S3Source reads an object of an S3-compatible store with ranged GetObject
// calls of the AWS SDK (which signs and retries them). Version tracking
// works as for HTTPSource (ETag and If-Match).
type S3Source struct {
	Bucket, Key string
	client      *s3.Client
	desc        string
	version
}

// NewS3SourceURL parses s3://bucket/key[?endpoint=URL&region=R&path_style=true|false]
// and returns the source; query parameters override opts.
func NewS3SourceURL(ctx context.Context, rawURL string, opts S3Options) (*S3Source, error) {
	bucket, key, cfg, err := blob.ParseS3URL(rawURL, opts.config())
	if err != nil {
		return nil, fmt.Errorf("pmtiles: %w", err)
	}
	if bucket == "" || key == "" {
		return nil, fmt.Errorf("pmtiles: S3 source needs a bucket and a key")
	}
	client, err := blob.NewS3Client(cfg)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: %w", err)
	}
	return NewS3ClientSource(client, bucket, key), nil
}

// NewS3Source returns a source for one object. No request is made until the
// first read.
func NewS3Source(_ context.Context, bucket, key string, opts S3Options) (*S3Source, error) {
	if bucket == "" || key == "" {
		return nil, fmt.Errorf("pmtiles: S3 source needs a bucket and a key")
	}
	if opts.AddressingStyle != "" && opts.AddressingStyle != "path" && opts.AddressingStyle != "virtual" {
		return nil, fmt.Errorf("pmtiles: bad S3 addressing style %q (path or virtual)", opts.AddressingStyle)
	}
	client, err := blob.NewS3Client(opts.config())
	if err != nil {
		return nil, fmt.Errorf("pmtiles: %w", err)
	}
	return NewS3ClientSource(client, bucket, key), nil
}

// NewS3ClientSource returns a source for one object read with client.
func NewS3ClientSource(client *s3.Client, bucket, key string) *S3Source {
	return &S3Source{Bucket: bucket, Key: key, client: client, desc: "s3://" + bucket + "/" + key, version: version{size: -1}}
}

// config is the SDK's configuration of the options.
func (o S3Options) config() blob.S3Config {
	cfg := blob.S3Config{
		Endpoint: o.Endpoint, Region: o.Region,
		AccessKey: o.AccessKey, SecretKey: o.SecretKey, SessionToken: o.SessionToken,
		Anonymous: true, HTTPClient: o.Client, Calls: o.Calls,
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient
	}
	switch o.AddressingStyle {
	case "path":
		cfg.PathStyle = aws.Bool(true)
	case "virtual":
		cfg.PathStyle = aws.Bool(false)
	}
	return cfg
}

// ReadRange implements RangeSource.
func (s *S3Source) ReadRange(ctx context.Context, offset, length int64) ([]byte, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	if length == 0 {
		return nil, nil
	}
	etag := s.etagValue()
	in := &s3.GetObjectInput{Bucket: &s.Bucket, Key: &s.Key, Range: aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))}
	if etag != "" {
		in.IfMatch = aws.String(etag)
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		return s.failed(err, etag, offset, length)
	}
	defer out.Body.Close()
	total := int64(-1) // unknown
	if out.ContentLength != nil {
		total = *out.ContentLength
	}
	start, end := int64(0), total-1
	if cr := aws.ToString(out.ContentRange); cr != "" {
		if start, end, total, err = parseContentRange(cr); err != nil {
			return nil, fmt.Errorf("pmtiles: %s: %w", s.desc, err)
		}
		if start != offset || end-start+1 > length {
			return nil, fmt.Errorf("pmtiles: %s: asked bytes %d-%d, got %d-%d", s.desc, offset, offset+length-1, start, end)
		}
	} else if offset != 0 {
		return nil, fmt.Errorf("pmtiles: %s: the service ignored the range", s.desc)
	}
	if s.observe(aws.ToString(out.ETag), total) {
		return nil, fmt.Errorf("pmtiles: %s: %w (ETag or size differs)", s.desc, ErrChanged)
	}
	if end < start {
		// No length known: read what comes, within what was asked.
		b, err := io.ReadAll(io.LimitReader(out.Body, length))
		if err != nil {
			return nil, fmt.Errorf("pmtiles: %s: read body: %w", s.desc, err)
		}
		return b, nil
	}
	b := make([]byte, min(length, end-start+1))
	if _, err := io.ReadFull(out.Body, b); err != nil {
		return nil, fmt.Errorf("pmtiles: %s: read body: %w", s.desc, err)
	}
	return b, nil
}

// failed turns a failed GetObject into the source's answer: a changed
// archive, the end of the archive, a missing object, or the error.
func (s *S3Source) failed(err error, etag string, offset, length int64) ([]byte, error) {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) {
		return nil, fmt.Errorf("pmtiles: %s: %w", s.desc, err)
	}
	switch re.HTTPStatusCode() {
	case http.StatusPreconditionFailed:
		s.forget(etag)
		return nil, fmt.Errorf("pmtiles: %s: %w (412 Precondition Failed)", s.desc, ErrChanged)
	case http.StatusRequestedRangeNotSatisfiable:
		if cr := re.Response.Header.Get("Content-Range"); strings.HasPrefix(cr, "bytes */") {
			if total, perr := strconv.ParseInt(cr[len("bytes */"):], 10, 64); perr == nil && total >= 0 {
				if s.observe(strings.TrimSpace(re.Response.Header.Get("ETag")), total) {
					return nil, fmt.Errorf("pmtiles: %s: %w (size differs)", s.desc, ErrChanged)
				}
				if offset >= total {
					return nil, nil
				}
			}
		}
		// Without a total, a range past the end of a known size is the end.
		if size := s.sizeValue(); size >= 0 && offset >= size {
			return nil, nil
		}
		return nil, fmt.Errorf("pmtiles: %s: range %d+%d not satisfiable", s.desc, offset, length)
	case http.StatusNotFound:
		return nil, fmt.Errorf("pmtiles: %s: %w (404)", s.desc, fs.ErrNotExist)
	}
	return nil, fmt.Errorf("pmtiles: %s: %w", s.desc, err)
}

// ETag implements RangeSource.
func (s *S3Source) ETag() string { return s.etagValue() }

// Size implements RangeSource (-1 before the first read).
func (s *S3Source) Size() int64 { return s.sizeValue() }

// Close implements RangeSource. Connections belong to the client.
func (s *S3Source) Close() error { return nil }
