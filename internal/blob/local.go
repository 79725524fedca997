package blob

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LocalOptions tune a Local store.
type LocalOptions struct {
	// Secret signs the part URLs (HMAC-SHA256); required. Nodes that share
	// the directory must share it.
	Secret []byte
	// PartPath is the path under the service URL at which parts are PUT:
	// a part URL is PartPath/UPLOAD/PART?expires=...&signature=...
	PartPath string
	// MaxPartSize bounds one part (5 GiB, S3's bound, when zero);
	// MinPartSize is the smallest part but the last (MinPartSize when
	// zero).
	MaxPartSize, MinPartSize int64
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Local is a store on the local disk that is its own multipart target:
// objects under DIR/objects, the parts of open uploads under
// DIR/multipart/UPLOAD.
type Local struct {
	dir  string
	opts LocalOptions
}

// NewLocal opens (making it if needed) a store in dir.
func NewLocal(dir string, opts LocalOptions) (*Local, error) {
	if len(opts.Secret) < 16 {
		return nil, errors.New("local store: a secret of at least 16 bytes is required")
	}
	if opts.MaxPartSize <= 0 {
		opts.MaxPartSize = 5 << 30
	}
	if opts.MinPartSize <= 0 {
		opts.MinPartSize = MinPartSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.PartPath = "/" + strings.Trim(opts.PartPath, "/")
	for _, d := range []string{"objects", "multipart"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("local store: %w", err)
		}
	}
	return &Local{dir: dir, opts: opts}, nil
}

func (l *Local) objectPath(key string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(key))
	if key == "" || clean != key || strings.HasPrefix(clean, "../") || clean == ".." || filepath.IsAbs(key) || strings.Contains(key, "\x00") {
		return "", fmt.Errorf("local store: key %q is not a clean relative path", key)
	}
	return filepath.Join(l.dir, "objects", filepath.FromSlash(key)), nil
}

// uploadDir returns the directory of an upload, checking the id's form.
func (l *Local) uploadDir(uploadID string) (string, error) {
	if len(uploadID) != 32 || strings.Trim(uploadID, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%w: %q", ErrNoUpload, uploadID)
	}
	return filepath.Join(l.dir, "multipart", uploadID), nil
}

// CreateMultipart implements Store.
func (l *Local) CreateMultipart(_ context.Context, key string) (string, error) {
	if _, err := l.objectPath(key); err != nil {
		return "", err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("local store: %w", err)
	}
	id := hex.EncodeToString(b[:])
	dir, _ := l.uploadDir(id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("local store: begin upload: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key"), []byte(key), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("local store: begin upload: %w", err)
	}
	return id, nil
}

func (l *Local) sign(uploadID string, part int, expires int64) string {
	m := hmac.New(sha256.New, l.opts.Secret)
	fmt.Fprintf(m, "PUT\n%s\n%d\n%d", uploadID, part, expires)
	return hex.EncodeToString(m.Sum(nil))
}

// PartURL implements Store: a path under the service URL, signed.
func (l *Local) PartURL(_ context.Context, _ string, uploadID string, part int, expires time.Duration) (string, error) {
	if part < 1 || part > MaxParts {
		return "", fmt.Errorf("%w: part number %d outside 1..%d", ErrParts, part, MaxParts)
	}
	exp := l.opts.Now().Add(expires).Unix()
	q := url.Values{"expires": {strconv.FormatInt(exp, 10)}, "signature": {l.sign(uploadID, part, exp)}}
	return fmt.Sprintf("%s/%s/%d?%s", l.opts.PartPath, uploadID, part, q.Encode()), nil
}

// PutPart receives a part PUT to a URL made by PartURL (its query's
// expires and signature) and returns the part's ETag (the quoted MD5 of its
// bytes, as S3 answers). A bad or expired signature wraps ErrForbidden; a
// part past MaxPartSize wraps ErrTooLarge.
func (l *Local) PutPart(ctx context.Context, uploadID string, part int, query url.Values, body io.Reader) (string, error) {
	// The URL is taken only exactly as signed: the expiry in canonical
	// decimal, the signature in lower-case hex.
	exp, err := strconv.ParseInt(query.Get("expires"), 10, 64)
	canonical := err == nil && strconv.FormatInt(exp, 10) == query.Get("expires")
	switch {
	case !canonical || subtle.ConstantTimeCompare([]byte(query.Get("signature")), []byte(l.sign(uploadID, part, exp))) != 1:
		return "", fmt.Errorf("%w: the signature does not match", ErrForbidden)
	case l.opts.Now().Unix() > exp:
		return "", fmt.Errorf("%w: the URL expired at %s; ask for the ingest again for new part URLs", ErrForbidden, time.Unix(exp, 0).UTC().Format(time.RFC3339))
	}
	dir, err := l.uploadDir(uploadID)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNoUpload, uploadID)
	}
	f, err := os.CreateTemp(dir, "part-*.tmp")
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNoUpload, uploadID)
	}
	if err != nil {
		return "", fmt.Errorf("local store: %w", err)
	}
	defer os.Remove(f.Name())
	h := md5.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, l.opts.MaxPartSize+1))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("local store: receive part %d: %w", part, err)
	}
	if n > l.opts.MaxPartSize {
		return "", fmt.Errorf("%w: a part may have at most %d bytes", ErrTooLarge, l.opts.MaxPartSize)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, strconv.Itoa(part))); err != nil {
		return "", fmt.Errorf("local store: keep part %d: %w", part, err)
	}
	return `"` + hex.EncodeToString(h.Sum(nil)) + `"`, nil
}

// Complete implements Store: the parts are joined into the object, each
// checked against its ETag on the way.
func (l *Local) Complete(ctx context.Context, key, uploadID string, parts []Part) error {
	if err := checkOrder(parts); err != nil {
		return err
	}
	dst, err := l.objectPath(key)
	if err != nil {
		return err
	}
	dir, err := l.uploadDir(uploadID)
	if err != nil {
		return err
	}
	if k, err := os.ReadFile(filepath.Join(dir, "key")); err != nil || string(k) != key {
		return fmt.Errorf("%w: %s", ErrNoUpload, uploadID)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	out, err := os.CreateTemp(filepath.Dir(dst), ".complete-*")
	if err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	defer os.Remove(out.Name())
	err = l.join(ctx, out, dir, parts)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(out.Name(), dst); err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("local store: drop the parts: %w", err)
	}
	return nil
}

func (l *Local) join(ctx context.Context, out io.Writer, dir string, parts []Part) error {
	for i, p := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := os.Open(filepath.Join(dir, strconv.Itoa(p.Number)))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: part %d was not uploaded", ErrParts, p.Number)
		}
		if err != nil {
			return fmt.Errorf("local store: %w", err)
		}
		h := md5.New()
		n, err := io.Copy(io.MultiWriter(out, h), f)
		f.Close()
		if err != nil {
			return fmt.Errorf("local store: join part %d: %w", p.Number, err)
		}
		if strings.Trim(p.ETag, `"`) != hex.EncodeToString(h.Sum(nil)) {
			return fmt.Errorf("%w: part %d has another ETag than %s", ErrParts, p.Number, p.ETag)
		}
		if i < len(parts)-1 && n < l.opts.MinPartSize {
			return fmt.Errorf("%w: part %d has %d bytes; every part but the last needs at least %d", ErrParts, p.Number, n, l.opts.MinPartSize)
		}
	}
	return nil
}

// Abort implements Store.
func (l *Local) Abort(_ context.Context, _ string, uploadID string) error {
	dir, err := l.uploadDir(uploadID)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNoUpload, uploadID)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("local store: abort: %w", err)
	}
	return nil
}

// Size implements Store.
func (l *Local) Size(_ context.Context, key string) (int64, error) {
	p, err := l.objectPath(key)
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return 0, fmt.Errorf("local store: %w", err)
	}
	return st.Size(), nil
}

// Download implements Store: a hard link when the file system allows,
// else a copy.
func (l *Local) Download(_ context.Context, key, dst string) error {
	p, err := l.objectPath(key)
	if err != nil {
		return err
	}
	if err := os.Link(p, dst); err == nil {
		return nil
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return fmt.Errorf("local store: %w", err)
	}
	defer f.Close()
	return writeFile(dst, f)
}

// Delete implements Store.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.objectPath(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("local store: delete %s: %w", key, err)
	}
	return nil
}
