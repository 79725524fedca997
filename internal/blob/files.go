package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Object describes one stored object.
type Object struct {
	// Key is the object's key (without the store's prefix).
	Key      string
	Size     int64
	Modified time.Time
	// ETag names the object's version (S3's ETag; size and modification
	// time for Local).
	ETag string
}

// Files is a place for whole files by key: the shared copy of a data
// directory (S3), or a local directory. Keys are slash-separated relative
// paths.
type Files interface {
	// Upload stores the local file at path as the object key, replacing
	// it, and returns what was stored.
	Upload(ctx context.Context, key, path string) (Object, error)
	// Download writes the object to a new local file at path.
	Download(ctx context.Context, key, path string) error
	// Stat describes the object; ErrNotFound when it does not exist.
	Stat(ctx context.Context, key string) (Object, error)
	// List describes every object whose key begins with prefix.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Delete removes the object; deleting a missing object is no error.
	Delete(ctx context.Context, key string) error
	// Ping tells whether the store answers.
	Ping(ctx context.Context) error
	// Location names the store (its service, bucket and prefix).
	Location() string
}

// uploadPartSize is the size of the parts of the files that S3.Upload
// sends as multipart uploads (larger files than one part).
const uploadPartSize = 64 << 20

// Upload implements Files: one PutObject, or a multipart upload for a
// file larger than 64 MiB (S3 takes at most 5 GiB in one PUT).
func (s *S3) Upload(ctx context.Context, key, p string) (Object, error) {
	f, err := os.Open(p)
	if err != nil {
		return Object{}, fmt.Errorf("s3: upload %s: %w", key, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Object{}, fmt.Errorf("s3: upload %s: %w", key, err)
	}
	if st.Size() <= uploadPartSize {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: aws.String(s.Key(key)), Body: f, ContentLength: aws.Int64(st.Size()),
		})
		if err != nil {
			return Object{}, fmt.Errorf("s3: put %s: %w", key, s.classify(err))
		}
	} else if err := s.uploadParts(ctx, key, f, st.Size()); err != nil {
		return Object{}, err
	}
	return s.Stat(ctx, key)
}

// uploadParts sends a large file as a multipart upload, aborted on error.
func (s *S3) uploadParts(ctx context.Context, key string, f *os.File, size int64) (err error) {
	id, err := s.CreateMultipart(ctx, key)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.Abort(context.WithoutCancel(ctx), key, id)
		}
	}()
	var parts []Part
	for off, n := int64(0), 1; off < size; off, n = off+uploadPartSize, n+1 {
		length := min(uploadPartSize, size-off)
		out, err := s.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &s.bucket, Key: aws.String(s.Key(key)), UploadId: &id, PartNumber: aws.Int32(int32(n)),
			Body: io.NewSectionReader(f, off, length), ContentLength: aws.Int64(length),
		})
		if err != nil {
			return fmt.Errorf("s3: upload part %d of %s: %w", n, key, s.classify(err))
		}
		parts = append(parts, Part{Number: n, ETag: aws.ToString(out.ETag)})
	}
	return s.Complete(ctx, key, id, parts)
}

// Stat implements Files.
func (s *S3) Stat(ctx context.Context, key string) (Object, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.Key(key))})
	if err != nil {
		return Object{}, fmt.Errorf("s3: stat %s: %w", key, s.classify(err))
	}
	return Object{Key: key, Size: aws.ToInt64(out.ContentLength), Modified: aws.ToTime(out.LastModified), ETag: aws.ToString(out.ETag)}, nil
}

// List implements Files.
func (s *S3) List(ctx context.Context, prefix string) ([]Object, error) {
	full := s.Key(prefix)
	if strings.HasSuffix(prefix, "/") && !strings.HasSuffix(full, "/") {
		full += "/"
	}
	var out []Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(full)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("s3: list %s: %w", prefix, s.classify(err))
		}
		for _, o := range page.Contents {
			out = append(out, s.object(o))
		}
	}
	return out, nil
}

func (s *S3) object(o types.Object) Object {
	k := aws.ToString(o.Key)
	if s.prefix != "" {
		k = strings.TrimPrefix(k, s.prefix+"/")
	}
	return Object{Key: k, Size: aws.ToInt64(o.Size), Modified: aws.ToTime(o.LastModified), ETag: aws.ToString(o.ETag)}
}

// Location implements Files: s3://bucket/prefix at the endpoint.
func (s *S3) Location() string {
	ep := aws.ToString(s.client.Options().BaseEndpoint)
	return "s3://" + s.bucket + "/" + s.prefix + "@" + ep
}

// Ping implements Files: the bucket answers a HeadBucket.
func (s *S3) Ping(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return fmt.Errorf("s3: bucket %s: %w", s.bucket, err)
	}
	return nil
}

// Upload implements Files: a copy under the store's objects.
func (l *Local) Upload(_ context.Context, key, p string) (Object, error) {
	dst, err := l.objectPath(key)
	if err != nil {
		return Object{}, err
	}
	in, err := os.Open(p)
	if err != nil {
		return Object{}, fmt.Errorf("local store: upload %s: %w", key, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return Object{}, fmt.Errorf("local store: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(dst), fmt.Sprintf(".upload-%d", time.Now().UnixNano()))
	if err := writeFile(tmp, in); err != nil {
		return Object{}, fmt.Errorf("local store: %w", err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return Object{}, fmt.Errorf("local store: %w", err)
	}
	return l.Stat(context.Background(), key)
}

// Stat implements Files.
func (l *Local) Stat(_ context.Context, key string) (Object, error) {
	p, err := l.objectPath(key)
	if err != nil {
		return Object{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.Mode().IsRegular()) {
		return Object{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return Object{}, fmt.Errorf("local store: %w", err)
	}
	return localObject(key, st), nil
}

// List implements Files.
func (l *Local) List(_ context.Context, prefix string) ([]Object, error) {
	root := filepath.Join(l.dir, "objects")
	var out []Object
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, localObject(key, info))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("local store: list %s: %w", prefix, err)
	}
	return out, nil
}

// Location implements Files: the store's folder.
func (l *Local) Location() string { return l.dir }

// Ping implements Files.
func (l *Local) Ping(context.Context) error {
	if _, err := os.Stat(filepath.Join(l.dir, "objects")); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	return nil
}

// localObject describes a file of a Local store.
func localObject(key string, info fs.FileInfo) Object {
	return Object{Key: key, Size: info.Size(), Modified: info.ModTime(), ETag: fmt.Sprintf("%x-%x", info.Size(), info.ModTime().UnixNano())}
}
