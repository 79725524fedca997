package pmtiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// RangeSource gives random access to the bytes of one archive.
type RangeSource interface {
	// ReadRange returns length bytes starting at offset. It returns fewer
	// bytes (and a nil error) only when the archive ends before
	// offset+length. When the source notices that the archive changed since
	// an earlier read (a different ETag), it returns an error wrapping
	// ErrChanged; readers then drop what they cached and start over.
	ReadRange(ctx context.Context, offset, length int64) ([]byte, error)
	// ETag identifies the version of the archive seen by the last read
	// ("" while unknown).
	ETag() string
	// Size returns the archive size in bytes, or -1 while unknown.
	Size() int64
	// Close releases the source.
	Close() error
}

// ErrChanged reports that the archive behind a RangeSource changed between
// two reads.
var ErrChanged = errors.New("pmtiles: archive changed")

// maxReadLength bounds any single ReadRange call made by this package.
const maxReadLength = 1 << 30

// FileSource reads a local archive. On Unix systems the file is mapped into
// memory (reads are then plain copies, without a system call); elsewhere, or
// when mapping fails, it uses positioned reads (pread). Both are safe for
// concurrent use. A mapped file that is truncated by another process while
// open makes reads fail with an error instead of crashing the program.
// Replacing the file by renaming another over it is safe: the source keeps
// reading the old version (its ETag is the size and modification time at
// open; reopen to see the new one).
type FileSource struct {
	f    *os.File
	size int64
	etag string
	mem  []byte // the mapped file, or nil

	// mu is held shared by reads and exclusively by Close, so a mapping is
	// never unmapped under a running read.
	mu     sync.RWMutex
	closed bool
}

// ErrClosed is returned by reads from a closed source.
var ErrClosed = errors.New("pmtiles: source closed")

// OpenFile opens a local archive.
func OpenFile(path string) (*FileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pmtiles: stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("pmtiles: %s is not a regular file", path)
	}
	s := &FileSource{f: f, size: st.Size(), etag: fmt.Sprintf("%x-%x", st.Size(), st.ModTime().UnixNano())}
	s.mem = mapFile(f, s.size)
	return s, nil
}

// ReadRange implements RangeSource.
func (s *FileSource) ReadRange(ctx context.Context, offset, length int64) ([]byte, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	if offset >= s.size {
		return nil, nil
	}
	length = min(length, s.size-offset)
	b := make([]byte, length)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.mem != nil {
		if err := copyMapped(b, s.mem[offset:offset+length]); err != nil {
			return nil, fmt.Errorf("pmtiles: read %s at %d: %w", s.f.Name(), offset, err)
		}
		return b, nil
	}
	n, err := s.f.ReadAt(b, offset)
	if err != nil && !(errors.Is(err, io.EOF) && n == len(b)) {
		if errors.Is(err, io.EOF) {
			// The file shrank after it was opened.
			return b[:n], nil
		}
		return nil, fmt.Errorf("pmtiles: read %s at %d: %w", s.f.Name(), offset, err)
	}
	return b, nil
}

// ReadAt reads len(p) bytes at off into p, so callers can reuse buffers.
func (s *FileSource) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// ETag implements RangeSource: the size and modification time at open.
func (s *FileSource) ETag() string { return s.etag }

// Size implements RangeSource.
func (s *FileSource) Size() int64 { return s.size }

// Close implements RangeSource. It waits for running reads; later reads
// fail with ErrClosed.
func (s *FileSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := unmapFile(s.mem)
	s.mem = nil
	return errors.Join(err, s.f.Close())
}

// Mapped reports whether the file is memory-mapped.
func (s *FileSource) Mapped() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mem != nil
}

// copyMapped copies from a memory mapping, turning the fault raised when the
// file was truncated underneath the mapping (SIGBUS) into an error.
func copyMapped(dst, src []byte) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("memory-mapped read failed (file truncated?): %v", r)
		}
	}()
	copy(dst, src)
	return nil
}

// Name returns the path of the file.
func (s *FileSource) Name() string { return s.f.Name() }

func checkRange(offset, length int64) error {
	if offset < 0 || length < 0 || length > maxReadLength || offset > (1<<62) {
		return fmt.Errorf("pmtiles: invalid range offset %d length %d", offset, length)
	}
	return nil
}

// SourceOptions configures OpenSource.
type SourceOptions struct {
	HTTP HTTPOptions
	S3   S3Options
}

// OpenSource opens an archive by location. Accepted forms:
//
//	/path/to/file.pmtiles, file:///path/to/file.pmtiles  local file
//	http://host/path.pmtiles, https://...                  HTTP range requests
//	s3://bucket/key/of/file.pmtiles[?endpoint=..&region=..&path_style=true|false]
//
// For s3 URLs the query parameters override the corresponding fields of
// opts.S3; credentials never come from the URL (see S3Options).
func OpenSource(ctx context.Context, location string, opts SourceOptions) (RangeSource, error) {
	if !strings.Contains(location, "://") {
		return OpenFile(location)
	}
	u, err := url.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: parse location: %w", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("pmtiles: file URL with remote host %q", u.Host)
		}
		return OpenFile(u.Path)
	case "http", "https":
		return NewHTTPSource(location, opts.HTTP)
	case "s3":
		return NewS3SourceURL(ctx, location, opts.S3)
	}
	return nil, fmt.Errorf("pmtiles: unsupported location scheme %q", u.Scheme)
}
