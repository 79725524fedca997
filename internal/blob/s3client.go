package blob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
)

// S3Config names an S3-compatible service and how to reach it. It is the
// one place where Tessera builds an S3 client, for the stores of this
// package and for the remote PMTiles reader.
type S3Config struct {
	// Endpoint is the service's base URL ("http://127.0.0.1:7070"); empty
	// means AWS ($AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL when set).
	Endpoint string
	// Region signs the requests; empty means $AWS_REGION,
	// $AWS_DEFAULT_REGION or us-east-1.
	Region string
	// PathStyle addresses objects as endpoint/bucket/key; otherwise as
	// bucket.endpoint/key. Nil means path style for an endpoint that is not
	// AWS's and virtual hosts for AWS.
	PathStyle *bool
	// AccessKey, SecretKey and SessionToken are the credentials; empty
	// means AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
	AccessKey, SecretKey, SessionToken string
	// Anonymous sends unsigned requests (public buckets) when no access key
	// is found; otherwise a missing key is an error.
	Anonymous bool
	// HTTPClient sends the requests (the SDK's default client when nil).
	HTTPClient *http.Client
	// Calls, when not nil, counts every call made with the client.
	Calls *Calls
}

// ParseS3URL splits s3://bucket/key?endpoint=URL&region=R&path_style=true
// into the bucket, the key (without its leading slash, unescaped) and the
// service settings its query names, over base.
func ParseS3URL(rawURL string, base S3Config) (bucket, key string, cfg S3Config, err error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return "", "", base, fmt.Errorf("%q is not an s3://bucket/key URL", rawURL)
	}
	cfg = base
	q := u.Query()
	if v := q.Get("endpoint"); v != "" {
		cfg.Endpoint = v
	}
	if v := q.Get("region"); v != "" {
		cfg.Region = v
	}
	if v := q.Get("path_style"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", "", base, fmt.Errorf("s3 url: path_style %q is not true or false", v)
		}
		cfg.PathStyle = &b
	}
	return u.Host, strings.TrimPrefix(u.Path, "/"), cfg, nil
}

// NewS3Client builds an S3 client of the AWS SDK for cfg.
func NewS3Client(cfg S3Config) (*s3.Client, error) {
	region := cfg.Region
	if region == "" {
		if region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION"); region == "" {
			region = "us-east-1"
		}
	}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	}
	pathStyle := endpoint != ""
	if cfg.PathStyle != nil {
		pathStyle = *cfg.PathStyle
	}
	if cfg.AccessKey == "" {
		cfg.AccessKey, cfg.SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		if cfg.SessionToken == "" {
			cfg.SessionToken = os.Getenv("AWS_SESSION_TOKEN")
		}
	}
	o := s3.Options{
		Region:       region,
		UsePathStyle: pathStyle,
		// Checksums only where S3 requires them: a presigned part is PUT by
		// a plain HTTP client that sends none, and a ranged GET has no
		// whole-object checksum to check.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	switch {
	case cfg.AccessKey != "" && cfg.SecretKey != "":
		o.Credentials = credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	case cfg.Anonymous:
		o.Credentials = aws.AnonymousCredentials{}
	default:
		return nil, errors.New("no S3 credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	}
	if cfg.HTTPClient != nil {
		o.HTTPClient = cfg.HTTPClient
	}
	if endpoint != "" {
		if e, err := url.Parse(endpoint); err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("s3 endpoint %q is not an http(s) URL", endpoint)
		}
		o.BaseEndpoint = aws.String(endpoint)
	}
	if cfg.Calls != nil {
		o.APIOptions = append(o.APIOptions, cfg.Calls.middleware)
	}
	return s3.New(o), nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// Calls counts S3 calls by operation (GetObject, PutObject, ...): one per
// call a client makes, whatever its outcome and however many times the SDK
// retried it. Safe for concurrent use.
type Calls struct {
	mu sync.Mutex
	n  map[string]uint64
}

// Add counts one call of the operation.
func (c *Calls) Add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]uint64{}
	}
	c.n[op]++
}

// Snapshot returns the counts so far, by operation.
func (c *Calls) Snapshot() map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]uint64, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// Total returns the number of calls of every operation.
func (c *Calls) Total() uint64 {
	var t uint64
	for _, v := range c.Snapshot() {
		t += v
	}
	return t
}

// Operations returns the operations counted so far, sorted.
func (c *Calls) Operations() []string {
	s := c.Snapshot()
	ops := make([]string, 0, len(s))
	for k := range s {
		ops = append(ops, k)
	}
	slices.Sort(ops)
	return ops
}

// middleware adds the counting step to a client's stack: it runs once per
// call, before the SDK's retry loop.
func (c *Calls) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("TesseraCountCalls",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.Add(awsmiddleware.GetOperationName(ctx))
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}
