package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3Options name the credentials of an S3 store; empty fields fall back to
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
type S3Options struct {
	AccessKey, SecretKey, SessionToken string
	// HTTPClient sends the requests (a default client when nil).
	HTTPClient *http.Client
	// Calls, when not nil, counts the store's S3 calls.
	Calls *Calls
}

// S3 is a store in a bucket of an S3-compatible service, under a prefix.
type S3 struct {
	bucket, prefix string
	client         *s3.Client
	presign        *s3.PresignClient
}

// NewS3 opens the store named by
// s3://bucket/prefix?endpoint=URL&region=R&path_style=true (see S3Config
// for the defaults).
func NewS3(rawURL string, opts S3Options) (*S3, error) {
	bucket, prefix, cfg, err := ParseS3URL(rawURL, S3Config{
		AccessKey: opts.AccessKey, SecretKey: opts.SecretKey, SessionToken: opts.SessionToken,
		HTTPClient: opts.HTTPClient, Calls: opts.Calls,
	})
	if err != nil {
		return nil, fmt.Errorf("storage url: %w", err)
	}
	c, err := NewS3Client(cfg)
	if err != nil {
		return nil, fmt.Errorf("storage url: %w", err)
	}
	return &S3{bucket: bucket, prefix: strings.Trim(prefix, "/"), client: c, presign: s3.NewPresignClient(c)}, nil
}

// Client returns the store's S3 client.
func (s *S3) Client() *s3.Client { return s.client }

// Bucket returns the store's bucket.
func (s *S3) Bucket() string { return s.bucket }

// Key returns the object key of a store key (under the prefix).
func (s *S3) Key(key string) string {
	if s.prefix == "" {
		return key
	}
	return path.Join(s.prefix, key)
}

// CreateMultipart implements Store.
func (s *S3) CreateMultipart(ctx context.Context, key string) (string, error) {
	out, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: aws.String(s.Key(key))})
	if err != nil {
		return "", fmt.Errorf("s3: create multipart upload of %s: %w", key, s.classify(err))
	}
	return aws.ToString(out.UploadId), nil
}

// PartURL implements Store: a presigned UploadPart request.
func (s *S3) PartURL(ctx context.Context, key, uploadID string, part int, expires time.Duration) (string, error) {
	req, err := s.presign.PresignUploadPart(ctx, &s3.UploadPartInput{
		Bucket: &s.bucket, Key: aws.String(s.Key(key)), UploadId: &uploadID, PartNumber: aws.Int32(int32(part)),
	}, s3.WithPresignExpires(expires))
	if err != nil {
		return "", fmt.Errorf("s3: presign part %d of %s: %w", part, key, err)
	}
	return req.URL, nil
}

// Complete implements Store.
func (s *S3) Complete(ctx context.Context, key, uploadID string, parts []Part) error {
	if err := checkOrder(parts); err != nil {
		return err
	}
	cp := make([]types.CompletedPart, len(parts))
	for i, p := range parts {
		cp[i] = types.CompletedPart{PartNumber: aws.Int32(int32(p.Number)), ETag: aws.String(p.ETag)}
	}
	_, err := s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &s.bucket, Key: aws.String(s.Key(key)), UploadId: &uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: cp},
	})
	if err != nil {
		return fmt.Errorf("s3: complete the upload of %s: %w", key, s.classify(err))
	}
	return nil
}

// Abort implements Store.
func (s *S3) Abort(ctx context.Context, key, uploadID string) error {
	_, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: aws.String(s.Key(key)), UploadId: &uploadID})
	if err != nil {
		return fmt.Errorf("s3: abort the upload of %s: %w", key, s.classify(err))
	}
	return nil
}

// Size implements Store.
func (s *S3) Size(ctx context.Context, key string) (int64, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.Key(key))})
	if err != nil {
		return 0, fmt.Errorf("s3: stat %s: %w", key, s.classify(err))
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Download implements Store.
func (s *S3) Download(ctx context.Context, key, dst string) error {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.Key(key))})
	if err != nil {
		return fmt.Errorf("s3: get %s: %w", key, s.classify(err))
	}
	defer out.Body.Close()
	return writeFile(dst, out.Body)
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.Key(key))}); err != nil {
		if err := s.classify(err); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("s3: delete %s: %w", key, err)
		}
	}
	return nil
}

// classify maps S3's error codes to the package's errors.
func (s *S3) classify(err error) error {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return err
	}
	switch api.ErrorCode() {
	case "NoSuchUpload":
		return fmt.Errorf("%w: %w", ErrNoUpload, err)
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case "InvalidPart", "InvalidPartOrder", "EntityTooSmall", "MalformedXML":
		return fmt.Errorf("%w: %s", ErrParts, api.ErrorMessage())
	}
	return err
}

// checkOrder refuses part lists that are empty, not ascending or
// numbered outside 1..MaxParts.
func checkOrder(parts []Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("%w: no parts", ErrParts)
	}
	if !sort.SliceIsSorted(parts, func(i, j int) bool { return parts[i].Number < parts[j].Number }) {
		return fmt.Errorf("%w: the parts are not in ascending order", ErrParts)
	}
	for i, p := range parts {
		if p.Number < 1 || p.Number > MaxParts || (i > 0 && parts[i-1].Number == p.Number) {
			return fmt.Errorf("%w: part number %d is repeated or outside 1..%d", ErrParts, p.Number, MaxParts)
		}
	}
	return nil
}

// writeFile copies r into a new file at path, synced; on error nothing
// is left there.
func writeFile(path string, r io.Reader) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
