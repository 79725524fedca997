// Package ingest turns uploaded files into tilesets: upload sessions that
// take a file's bytes in one request or in resumable chunks, and processing
// that checks the upload (MBTiles, PMTiles or GeoJSON), converts GeoJSON
// with Tessera's tiler, and moves the result into the tiles directory in one
// rename, so that a crash never leaves a half-made tileset behind.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/store"
)

// Errors callers map to statuses.
var (
	ErrNotFound = errors.New("ingest not found")
	// ErrInvalid is wrapped by errors in what the client sent (4xx).
	ErrInvalid = errors.New("invalid ingest")
	// ErrTooLarge is wrapped when a file exceeds the configured maximum.
	ErrTooLarge = errors.New("file too large")
	// ErrState is wrapped when the ingest is not in a state that allows the
	// operation (for example processing an incomplete upload).
	ErrState = errors.New("ingest state does not allow this")
)

// MaxFilenameBytes is the longest accepted file name.
const MaxFilenameBytes = 255

// Service runs upload sessions.
type Service struct {
	db      *store.DB
	cat     *catalog.Catalog
	dir     string // uploads directory
	maxSize int64
	log     *slog.Logger

	mu    sync.Mutex             // guards locks
	locks map[string]*sync.Mutex // one per ingest: uploads and processing do not overlap
}

// New makes the service. Uploads go to dir; files above maxSize bytes are
// refused.
func New(db *store.DB, cat *catalog.Catalog, dir string, maxSize int64, log *slog.Logger) (*Service, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make uploads directory: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: db, cat: cat, dir: dir, maxSize: maxSize, log: log, locks: map[string]*sync.Mutex{}}
	s.cleanStale()
	return s, nil
}

// cleanStale removes the temporary outputs a crash may have left in the
// tiles directory.
func (s *Service) cleanStale() {
	matches, _ := filepath.Glob(filepath.Join(s.cat.Dir(), ".ingest-*"))
	for _, m := range matches {
		if err := os.Remove(m); err == nil {
			s.log.Info("removed a temporary file left by an interrupted ingest", "file", m)
		}
	}
}

func (s *Service) lock(id string) func() {
	s.mu.Lock()
	l, ok := s.locks[id]
	if !ok {
		l = &sync.Mutex{}
		s.locks[id] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// Record is an ingest as the API shows it.
type Record struct {
	store.Ingest
	// Received is the number of bytes uploaded so far.
	Received int64
}

// Create starts an upload session for a file of the given name and size.
func (s *Service) Create(ctx context.Context, filename string, size int64) (Record, error) {
	if err := checkFilename(filename); err != nil {
		return Record{}, err
	}
	if size <= 0 {
		return Record{}, fmt.Errorf("%w: size must be a positive number of bytes", ErrInvalid)
	}
	if size > s.maxSize {
		return Record{}, fmt.Errorf("%w: %d bytes is more than the maximum of %d bytes", ErrTooLarge, size, s.maxSize)
	}
	if _, err := kindFromName(filename); err != nil {
		return Record{}, err
	}
	in := store.Ingest{ID: uuid.NewString(), DocumentID: uuid.NewString(), Filename: filename, Size: size, State: store.IngestUpload}
	in, err := s.db.CreateIngest(ctx, in)
	if err != nil {
		return Record{}, err
	}
	f, err := os.Create(s.partPath(in.ID))
	if err != nil {
		return Record{}, fmt.Errorf("create upload file: %w", err)
	}
	f.Close()
	return Record{Ingest: in}, nil
}

func checkFilename(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: filename is required", ErrInvalid)
	case len(name) > MaxFilenameBytes:
		return fmt.Errorf("%w: filename has more than %d bytes", ErrInvalid, MaxFilenameBytes)
	case !utf8.ValidString(name) || strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("%w: filename must be a plain file name (no path separators)", ErrInvalid)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: filename has control characters", ErrInvalid)
		}
	}
	return nil
}

func (s *Service) partPath(id string) string { return filepath.Join(s.dir, id+".part") }

// Get returns the session.
func (s *Service) Get(ctx context.Context, id string) (Record, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	in, err := s.db.Ingest(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, err
	}
	rec := Record{Ingest: in}
	if st, err := os.Stat(s.partPath(id)); err == nil {
		rec.Received = st.Size()
	} else if in.State == store.IngestDone || in.State == store.IngestProcessing {
		rec.Received = in.Size
	}
	return rec, nil
}

// Range is the part of the file a chunk carries (from Content-Range).
type Range struct {
	Start, End int64 // inclusive byte positions
	Total      int64 // -1 when unknown ("*")
}

// Upload writes bytes into the session. With no range, body is the whole
// file. With a range, the chunk must start where the bytes received so far
// end (or earlier, to resend an overlapping part), so an interrupted upload
// resumes at Record.Received. It returns the session afterwards; the upload
// is complete when Received equals Size.
func (s *Service) Upload(ctx context.Context, id string, body io.Reader, rng *Range) (Record, error) {
	rec, err := s.Get(ctx, id)
	if err != nil {
		return Record{}, err
	}
	unlock := s.lock(id)
	defer unlock()
	if rec, err = s.Get(ctx, id); err != nil {
		return Record{}, err
	}
	if rec.State != store.IngestUpload && rec.State != store.IngestUploaded {
		return rec, fmt.Errorf("%w: the ingest is %s", ErrState, rec.State)
	}
	start := int64(0)
	limit := rec.Size
	if rng != nil {
		if rng.Total >= 0 && rng.Total != rec.Size {
			return rec, fmt.Errorf("%w: Content-Range total %d differs from the declared size %d", ErrInvalid, rng.Total, rec.Size)
		}
		if rng.Start < 0 || rng.End < rng.Start || rng.End >= rec.Size {
			return rec, fmt.Errorf("%w: Content-Range bytes %d-%d outside the file of %d bytes", ErrInvalid, rng.Start, rng.End, rec.Size)
		}
		if rng.Start > rec.Received {
			return rec, fmt.Errorf("%w: chunk starts at byte %d but only %d bytes were received: resume at %d", ErrInvalid, rng.Start, rec.Received, rec.Received)
		}
		start = rng.Start
		limit = rng.End - rng.Start + 1
	}
	f, err := os.OpenFile(s.partPath(id), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return rec, fmt.Errorf("open upload file: %w", err)
	}
	defer f.Close()
	if rng == nil {
		if err := f.Truncate(0); err != nil {
			return rec, fmt.Errorf("truncate upload file: %w", err)
		}
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return rec, fmt.Errorf("seek upload file: %w", err)
	}
	// Read one byte more than allowed, to tell an oversized body.
	n, err := io.Copy(f, io.LimitReader(body, limit+1))
	if err != nil {
		// Keep what arrived: the client resumes from Received.
		f.Sync()
		return rec, fmt.Errorf("receive upload: %w", err)
	}
	if n > limit {
		// Drop the excess so Received stays honest.
		f.Truncate(start + limit)
		if rng == nil {
			f.Truncate(0)
			return rec, fmt.Errorf("%w: the body has more bytes than the declared size %d", ErrInvalid, rec.Size)
		}
		return rec, fmt.Errorf("%w: the chunk has more bytes than its Content-Range says (%d)", ErrInvalid, limit)
	}
	if rng != nil && n < limit {
		f.Truncate(start + n)
		f.Sync()
		return rec, fmt.Errorf("%w: the chunk has %d bytes, its Content-Range says %d", ErrInvalid, n, limit)
	}
	if err := f.Sync(); err != nil {
		return rec, fmt.Errorf("sync upload file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return rec, fmt.Errorf("stat upload file: %w", err)
	}
	if rng == nil && st.Size() != rec.Size {
		size := st.Size()
		f.Truncate(0)
		return rec, fmt.Errorf("%w: received %d bytes, the declared size is %d", ErrInvalid, size, rec.Size)
	}
	rec.Received = st.Size()
	state := store.IngestUpload
	if rec.Received == rec.Size {
		state = store.IngestUploaded
	}
	if state != rec.State {
		rec.State = state
		if rec.Ingest, err = s.db.UpdateIngest(ctx, rec.Ingest); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// Process validates a complete upload and turns it into a tileset whose
// admin id is the session's document id, named after the file name without
// its extension (made unique if taken). Processing a finished session
// again returns its tileset.
func (s *Service) Process(ctx context.Context, id string) (*catalog.Entry, error) {
	rec, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	unlock := s.lock(id)
	defer unlock()
	if rec, err = s.Get(ctx, id); err != nil {
		return nil, err
	}
	switch rec.State {
	case store.IngestDone:
		if e, ok := s.cat.ByID(rec.TilesetID); ok {
			return e, nil
		}
		return nil, fmt.Errorf("%w: the tileset made by this ingest was deleted", ErrState)
	case store.IngestFailed:
		return nil, fmt.Errorf("%w: processing failed: %s", ErrState, strings.Join(rec.Errors, "; "))
	case store.IngestUploaded:
	default:
		return nil, fmt.Errorf("%w: the upload is incomplete: %d of %d bytes received", ErrState, rec.Received, rec.Size)
	}
	rec.State = store.IngestProcessing
	if rec.Ingest, err = s.db.UpdateIngest(ctx, rec.Ingest); err != nil {
		return nil, err
	}
	e, perr := s.process(ctx, rec)
	if perr != nil {
		rec.State = store.IngestFailed
		rec.Errors = append(rec.Errors, perr.Error())
		if !errors.Is(perr, ErrInvalid) {
			// Not the client's fault (a disk error, a cancelled request):
			// let them try again.
			rec.State = store.IngestUploaded
			rec.Errors = nil
		} else {
			os.Remove(s.partPath(id))
		}
		if _, err := s.db.UpdateIngest(context.WithoutCancel(ctx), rec.Ingest); err != nil {
			s.log.Error("record ingest failure", "id", id, "err", err)
		}
		return nil, perr
	}
	rec.State = store.IngestDone
	rec.TilesetID = e.ID
	if _, err := s.db.UpdateIngest(context.WithoutCancel(ctx), rec.Ingest); err != nil {
		return nil, err
	}
	os.Remove(s.partPath(id))
	return e, nil
}

func (s *Service) process(ctx context.Context, rec Record) (*catalog.Entry, error) {
	part := s.partPath(rec.ID)
	kind, err := sniffFile(part)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(rec.Filename, filepath.Ext(rec.Filename))
	if strings.EqualFold(filepath.Ext(name), ".geojson") || strings.EqualFold(filepath.Ext(name), ".json") {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	tmp := filepath.Join(s.cat.Dir(), ".ingest-"+rec.ID+kind.ext())
	defer os.Remove(tmp) // gone after a successful rename anyway
	switch kind {
	case kindMBTiles, kindPMTiles:
		if err := CheckTileset(ctx, part, kind); err != nil {
			return nil, err
		}
		if err := copyFile(part, tmp); err != nil {
			return nil, err
		}
	case kindGeoJSON:
		f, err := os.Open(part)
		if err != nil {
			return nil, fmt.Errorf("open upload: %w", err)
		}
		err = ConvertGeoJSON(ctx, f, tmp, name, s.log)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	e, err := s.cat.AddFile(ctx, tmp, name, kind.ext(), rec.DocumentID)
	if err != nil {
		if errors.Is(err, catalog.ErrNameTaken) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return e, nil
}

// copyFile copies src to dst (created), syncing it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy to %s: %w", dst, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("sync %s: %w", dst, err)
	}
	return out.Close()
}

type kind int

const (
	kindMBTiles kind = iota + 1
	kindPMTiles
	kindGeoJSON
)

func (k kind) ext() string {
	switch k {
	case kindMBTiles:
		return ".mbtiles"
	case kindPMTiles:
		return ".pmtiles"
	}
	return ".mbtiles" // GeoJSON becomes an MBTiles tileset
}

// kindFromName checks the extension of an upload's file name.
func kindFromName(name string) (kind, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".mbtiles":
		return kindMBTiles, nil
	case ".pmtiles":
		return kindPMTiles, nil
	case ".geojson", ".json":
		return kindGeoJSON, nil
	}
	return 0, fmt.Errorf("%w: %q: accepted uploads are .mbtiles, .pmtiles and .geojson (or .json) files", ErrInvalid, name)
}

// sniffFile tells the format of a file from its first bytes.
func sniffFile(path string) (kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open upload: %w", err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return kindMBTiles, nil
	case bytes.HasPrefix(head, []byte("PMTiles")):
		return kindPMTiles, nil
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return kindGeoJSON, nil
	}
	return 0, fmt.Errorf("%w: unknown file format: not an MBTiles (SQLite), PMTiles or GeoJSON file", ErrInvalid)
}
