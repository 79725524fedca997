// Package ingest turns uploaded files into tilesets: upload sessions that
// take a file's bytes in one request or in resumable chunks, and processing
// that checks the upload (MBTiles, PMTiles, GeoJSON or GeoTIFF), converts
// GeoJSON with Tessera's tiler and GeoTIFF with the raster tiler, and moves the result into the tiles directory in one
// rename, so that a crash never leaves a half-made tileset behind.
package ingest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/lease"
	"github.com/tesseramaps/tessera/internal/store"
)

// Errors callers map to statuses.
var (
	ErrNotFound = errors.New("ingest not found")
	// ErrInvalid is wrapped by errors in what the client sent (4xx): a
	// malformed request or a file that is not a valid tileset. Every other
	// failure (disk, database, cancellation) is the server's.
	ErrInvalid = errors.New("invalid ingest")
	// ErrTooLarge is wrapped when a file exceeds the configured maximum.
	ErrTooLarge = errors.New("file too large")
	// ErrState is wrapped when the ingest is not in a state that allows the
	// operation (for example processing an incomplete upload).
	ErrState = errors.New("ingest state does not allow this")
	// ErrBusy is wrapped when another request is uploading to or processing
	// the same ingest.
	ErrBusy = errors.New("ingest busy")
)

// MaxFilenameBytes is the longest accepted file name.
const MaxFilenameBytes = 255

// DefaultExpiry is how long an upload may receive nothing before it is
// removed.
const DefaultExpiry = 24 * time.Hour

// DefaultRetention is how long the record of a finished ingest (done,
// failed; for dataset ingests completed, canceled, failed) is kept after
// its last change before it is purged.
const DefaultRetention = 30 * 24 * time.Hour

// Options tune a Service.
type Options struct {
	// MaxSize is the largest accepted file, in bytes.
	MaxSize int64
	// Expiry removes uploads (record and file) that received nothing for
	// this long; DefaultExpiry when zero.
	Expiry time.Duration
	// Retention purges the records of finished ingests (done, failed)
	// this long after their last change; DefaultRetention when zero.
	Retention time.Duration
	Logger    *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// FeaturesDir, when set, keeps each GeoJSON upload there as
	// <tileset id>.geojson beside the tileset made from it.
	FeaturesDir string
	// Lease is how long processing holds its claim on the ingest in the
	// database without renewing it (renewed every quarter of it;
	// DefaultLease when zero): another node, or this one after a
	// restart, may take the ingest over only after that.
	Lease time.Duration
	// Chunks, when set (the shared S3 storage of several nodes), keeps
	// the chunks of uploads as objects, so that the chunks of one upload
	// may arrive at different nodes; without it they are written to this
	// node's uploads directory.
	Chunks blob.Files
	// Share, when set, is given each file kept in FeaturesDir once it is
	// written, before the tileset is committed (storage_url: it uploads
	// the file for the other nodes); its error fails the ingest.
	Share Share
}

// Share shares a file that an ingest kept (see Options.Share).
type Share func(ctx context.Context, path string) error

// share calls sh when it is set.
func (sh Share) share(ctx context.Context, path string) error {
	if sh == nil {
		return nil
	}
	return sh(ctx, path)
}

// Service runs upload sessions.
type Service struct {
	db      *store.DB
	cat     *catalog.Catalog
	dir     string // uploads directory
	maxSize int64
	expiry  time.Duration
	keep    time.Duration // retention of finished records
	now     func() time.Time
	log     *slog.Logger
	// features keeps the GeoJSON uploads ("" = not kept).
	features string
	// node names this service's claims on the ingests it processes;
	// lease is how long a claim lasts unrenewed.
	node  string
	lease time.Duration
	share Share
	// chunks keeps the uploads' chunks in shared storage (nil: on disk).
	chunks *chunks

	busy busySet // ingests with an upload or processing under way
}

// New makes the service over the uploads directory dir and puts the
// directory in order after a crash (see Recover).
func New(ctx context.Context, db *store.DB, cat *catalog.Catalog, dir string, opts Options) (*Service, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make uploads directory: %w", err)
	}
	s := &Service{db: db, cat: cat, dir: dir, maxSize: opts.MaxSize, expiry: opts.Expiry, keep: cmp.Or(opts.Retention, DefaultRetention),
		now: opts.Now, log: opts.Logger, features: opts.FeaturesDir, node: uuid.NewString(), lease: opts.Lease, share: opts.Share}
	if opts.Chunks != nil {
		s.chunks = &chunks{opts.Chunks}
	}
	if s.lease <= 0 {
		s.lease = DefaultLease
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.expiry <= 0 {
		s.expiry = DefaultExpiry
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.cleanStale()
	if err := s.Recover(ctx); err != nil {
		return nil, err
	}
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

// Recover puts the ingests in order after a crash: a processing that was
// interrupted (its lease ended: no node renews it) goes back to "uploaded"
// (its upload is complete and can be processed again) or, when its file is
// gone, to "failed" with the reason; a processing whose lease another node
// still renews is left alone; an upload whose file is gone fails; files of
// the uploads directory that belong to no live upload are removed. When
// the state database is shared with other nodes (PostgreSQL), a file
// missing here may be on another node's disk: it fails nothing.
func (s *Service) Recover(ctx context.Context) error {
	all, err := s.db.Ingests(ctx)
	if err != nil {
		return fmt.Errorf("recover ingests: %w", err)
	}
	shared := s.db.Dialect() == store.Postgres || s.chunks != nil
	live := map[string]bool{}
	for _, in := range all {
		size := int64(-1)
		if st, err := os.Stat(s.partPath(in.ID)); err == nil {
			size = st.Size()
		}
		switch in.State {
		case store.IngestProcessing:
			if s.leaseHeld(in) {
				live[in.ID] = true // another node is processing it
				continue
			}
			if size == in.Size || (size < 0 && shared) {
				in.State, in.Errors = store.IngestUploaded, nil
				s.log.Warn("an interrupted processing was found: the upload can be processed again", "ingest", in.ID, "file", in.Filename)
			} else {
				in.State = store.IngestFailed
				in.Errors = append(in.Errors, "processing was interrupted (the server stopped) and the uploaded file is gone: upload it again")
				s.log.Warn("an interrupted processing was found and its upload is gone", "ingest", in.ID, "file", in.Filename)
			}
			// Only while nobody took it over meanwhile (an owner of ""
			// is no condition: an ingest without a lease is matched on
			// its state).
			cond := store.IngestCond{States: []string{store.IngestProcessing}, LeaseOwner: in.LeaseOwner}
			in.LeaseOwner, in.LeaseUntil = "", ""
			if _, err := s.db.UpdateIngestIf(ctx, in, cond); err != nil && !errors.Is(err, store.ErrStale) {
				return fmt.Errorf("recover ingest %s: %w", in.ID, err)
			}
		case store.IngestUpload, store.IngestUploaded:
			if (size < 0 && !shared) || size > in.Size {
				in.State = store.IngestFailed
				in.Errors = append(in.Errors, "the uploaded file is gone: upload it again")
				if _, err := s.db.UpdateIngest(ctx, in); err != nil {
					return fmt.Errorf("recover ingest %s: %w", in.ID, err)
				}
				continue
			}
		default:
			continue
		}
		if in.State == store.IngestUpload || in.State == store.IngestUploaded {
			live[in.ID] = true
		}
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("read uploads directory: %w", err)
	}
	for _, de := range entries {
		name := de.Name()
		id, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
		if ext == ".part" && live[id] {
			continue
		}
		if ext == ".part" || ext == ".chunk" {
			if err := os.Remove(filepath.Join(s.dir, name)); err == nil {
				s.log.Info("removed an upload file with no live ingest", "file", name)
			}
		}
	}
	return nil
}

// leaseHeld tells whether a processing ingest is claimed by a lease that
// has not ended.
func (s *Service) leaseHeld(in store.Ingest) bool {
	return in.LeaseOwner != "" && in.LeaseUntil >= s.leaseTime(s.now())
}

func (s *Service) leaseTime(t time.Time) string { return t.UTC().Format(store.LeaseTime) }

// begin marks the ingest busy; it fails with ErrBusy while another request
// holds it.
func (s *Service) begin(id string) (end func(), err error) { return s.busy.begin(id) }

// busySet marks the ingests that a request is working on.
type busySet struct {
	mu sync.Mutex
	m  map[string]bool
}

// begin marks id busy; it fails with ErrBusy while another request holds
// it.
func (b *busySet) begin(id string) (end func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m[id] {
		return nil, fmt.Errorf("%w: another request is uploading to or processing this ingest; retry when it is done", ErrBusy)
	}
	if b.m == nil {
		b.m = map[string]bool{}
	}
	b.m[id] = true
	return func() {
		b.mu.Lock()
		delete(b.m, id)
		b.mu.Unlock()
	}, nil
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
	if s.chunks != nil {
		return Record{Ingest: in}, nil
	}
	f, err := os.Create(s.partPath(in.ID))
	if err != nil {
		s.db.DeleteIngest(context.WithoutCancel(ctx), in.ID)
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

func (s *Service) partPath(id string) string  { return filepath.Join(s.dir, id+".part") }
func (s *Service) chunkPath(id string) string { return filepath.Join(s.dir, id+".chunk") }

// Get returns the session.
func (s *Service) Get(ctx context.Context, id string) (Record, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	in, err := s.db.Ingest(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && in.Kind != store.KindTileset) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, err
	}
	return s.record(ctx, in)
}

// record adds the bytes received to a stored ingest.
func (s *Service) record(ctx context.Context, in store.Ingest) (Record, error) {
	rec := Record{Ingest: in}
	if s.chunks != nil {
		switch in.State {
		case store.IngestUpload, store.IngestUploaded:
			n, err := s.chunks.received(ctx, in.ID)
			if err != nil {
				return rec, err
			}
			rec.Received = n
		case store.IngestDone, store.IngestProcessing:
			rec.Received = in.Size
		}
		return rec, nil
	}
	if st, err := os.Stat(s.partPath(in.ID)); err == nil {
		rec.Received = st.Size()
	} else if in.State == store.IngestDone || in.State == store.IngestProcessing {
		rec.Received = in.Size
	}
	return rec, nil
}

// List returns every ingest, newest first.
func (s *Service) List(ctx context.Context) ([]Record, error) {
	all, err := s.db.Ingests(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Record, len(all))
	for i, in := range all {
		if out[i], err = s.record(ctx, in); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Cancel ends an ingest that is not being processed: its record and its
// upload file are removed (a tileset it made stays).
func (s *Service) Cancel(ctx context.Context, id string) error {
	rec, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	end, err := s.begin(id)
	if err != nil {
		return err
	}
	defer end()
	if rec, err = s.Get(ctx, id); err != nil {
		return err
	}
	if rec.State == store.IngestProcessing {
		return fmt.Errorf("%w: the ingest is being processed", ErrState)
	}
	return s.remove(ctx, id)
}

// remove deletes an ingest's files and record.
func (s *Service) remove(ctx context.Context, id string) error {
	for _, p := range []string{s.partPath(id), s.chunkPath(id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove upload file: %w", err)
		}
	}
	if s.chunks != nil {
		if err := s.chunks.remove(ctx, id); err != nil {
			return err
		}
	}
	if err := s.db.DeleteIngest(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// Expire removes the uploads (not yet processed) that received nothing for
// longer than the expiry, and returns their ids.
func (s *Service) Expire(ctx context.Context) ([]string, error) {
	all, err := s.db.Ingests(ctx)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, in := range all {
		if in.State != store.IngestUpload && in.State != store.IngestUploaded {
			continue
		}
		last, _ := time.Parse(time.RFC3339Nano, in.Changed)
		if st, err := os.Stat(s.partPath(in.ID)); err == nil && st.ModTime().After(last) {
			last = st.ModTime()
		}
		if s.now().Sub(last) <= s.expiry {
			continue
		}
		end, err := s.begin(in.ID)
		if err != nil {
			continue // an upload is arriving right now
		}
		err = s.remove(ctx, in.ID)
		end()
		if err != nil {
			return removed, err
		}
		s.log.Info("an upload received nothing for too long and was removed", "ingest", in.ID, "file", in.Filename, "expiry", s.expiry)
		removed = append(removed, in.ID)
	}
	return removed, nil
}

// Purge deletes the records of the ingests that finished (done, failed)
// longer than the retention ago, and returns their ids.
func (s *Service) Purge(ctx context.Context) ([]string, error) {
	return purge(ctx, s.db, s.log, store.KindTileset, s.now().Add(-s.keep), store.IngestDone, store.IngestFailed)
}

// purge deletes the records of a kind's ingests in the given final states
// last changed before cutoff.
func purge(ctx context.Context, db *store.DB, log *slog.Logger, kind string, cutoff time.Time, states ...string) ([]string, error) {
	ids, err := db.PurgeIngests(ctx, kind, states, cutoff.UTC().Format(time.RFC3339Nano))
	if len(ids) > 0 {
		log.Info("purged the records of finished ingests", "kind", kind, "count", len(ids), "changed_before", cutoff.UTC())
	}
	return ids, err
}

// RunExpiry calls Expire and Purge now and then every interval until ctx
// ends.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Expire(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("expire uploads", "err", err)
		}
		if _, err := s.Purge(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("purge finished ingests", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Range is the part of the file a chunk carries (from Content-Range).
type Range struct {
	Start, End int64 // inclusive byte positions
	Total      int64 // -1 when unknown ("*")
}

// Upload writes bytes into the session. With no range, body is the whole
// file. With a range, the chunk must start where the bytes received so far
// end (or earlier, to resend an overlapping part), so an interrupted upload
// resumes at Record.Received. A chunk is received whole into a side file
// before any of it is committed: a refused or broken chunk changes nothing.
// It returns the session afterwards; the upload is complete when Received
// equals Size.
func (s *Service) Upload(ctx context.Context, id string, body io.Reader, rng *Range) (Record, error) {
	rec, err := s.Get(ctx, id)
	if err != nil {
		return Record{}, err
	}
	end, err := s.begin(id)
	if err != nil {
		return rec, err
	}
	defer end()
	if rec, err = s.Get(ctx, id); err != nil {
		return Record{}, err
	}
	if rec.State != store.IngestUpload && rec.State != store.IngestUploaded {
		return rec, fmt.Errorf("%w: the ingest is %s", ErrState, rec.State)
	}
	if s.chunks != nil {
		// The chunk goes to the shared store: the next may reach
		// another node.
		defer os.Remove(s.chunkPath(id))
		start, err := receiveChunk(s.chunkPath(id), rec.Size, rec.Received, body, rng)
		if err != nil {
			return rec, err
		}
		if err := s.chunks.put(ctx, id, s.chunkPath(id), start); err != nil {
			return rec, err
		}
		if rec.Received, err = s.chunks.received(ctx, id); err != nil {
			return rec, err
		}
	} else {
		received, err := writeChunk(s.partPath(id), s.chunkPath(id), rec.Size, rec.Received, body, rng)
		if err != nil {
			return rec, err
		}
		rec.Received = received
	}
	state := store.IngestUpload
	if rec.Received == rec.Size {
		state = store.IngestUploaded
	}
	rec.State = state
	// Recording the change (even of nothing but the time) marks activity
	// for the expiry.
	if rec.Ingest, err = s.db.UpdateIngest(context.WithoutCancel(ctx), rec.Ingest); err != nil {
		return rec, err
	}
	return rec, nil
}

// writeChunk writes a chunk (the whole file when rng is nil) into the
// upload file part of a file of size bytes, of which received have
// arrived, through the side file chunk, and returns the bytes received
// afterwards. With a range, the chunk must start at or before received
// (resending an overlap is allowed), so an interrupted upload resumes
// there. The chunk is received whole before any of it is committed: a
// refused or broken chunk changes nothing.
func writeChunk(part, chunk string, size, received int64, body io.Reader, rng *Range) (int64, error) {
	defer os.Remove(chunk) // renamed or copied on success; dropped otherwise
	start, err := receiveChunk(chunk, size, received, body, rng)
	if err != nil {
		return received, err
	}
	if rng == nil {
		if err := os.Rename(chunk, part); err != nil {
			return received, fmt.Errorf("commit upload: %w", err)
		}
	} else if err := commitChunk(chunk, part, start); err != nil {
		return received, err
	}
	st, err := os.Stat(part)
	if err != nil {
		return received, fmt.Errorf("stat upload file: %w", err)
	}
	return st.Size(), nil
}

// receiveChunk checks a chunk's range (the whole file of size bytes when
// rng is nil) against the bytes received so far and receives its body
// whole into the file chunk; it returns where the chunk starts in the
// file. With a range, the chunk must start at or before received.
func receiveChunk(chunk string, size, received int64, body io.Reader, rng *Range) (int64, error) {
	start, limit := int64(0), size
	if rng != nil {
		switch {
		case rng.Total >= 0 && rng.Total != size:
			return received, fmt.Errorf("%w: Content-Range total %d differs from the declared size %d", ErrInvalid, rng.Total, size)
		case rng.Start < 0 || rng.End < rng.Start:
			return received, fmt.Errorf("%w: Content-Range bytes %d-%d is not a range", ErrInvalid, rng.Start, rng.End)
		case rng.End >= size:
			return received, fmt.Errorf("%w: Content-Range bytes %d-%d ends at byte %d, past the end of the file of %d bytes (its last byte is %d)", ErrInvalid, rng.Start, rng.End, rng.End, size, size-1)
		case rng.Start > received:
			return received, fmt.Errorf("%w: chunk starts at byte %d but only %d bytes were received: resume at %d", ErrInvalid, rng.Start, received, received)
		}
		start, limit = rng.Start, rng.End-rng.Start+1
	}
	n, err := receive(body, chunk, limit)
	if err != nil {
		return received, err
	}
	switch {
	case n > limit && rng == nil:
		return received, fmt.Errorf("%w: the body has more bytes than the declared size %d", ErrInvalid, size)
	case n > limit:
		return received, fmt.Errorf("%w: the chunk has more bytes than its Content-Range says (%d)", ErrInvalid, limit)
	case n < limit && rng == nil:
		return received, fmt.Errorf("%w: received %d bytes, the declared size is %d", ErrInvalid, n, size)
	case n < limit:
		return received, fmt.Errorf("%w: the chunk has %d bytes, its Content-Range says %d", ErrInvalid, n, limit)
	}
	return start, nil
}

// receive copies at most limit+1 bytes of body into a new file at path
// and returns how many arrived. A body that breaks off is the client's
// problem (ErrInvalid); a failure to write is the server's.
func receive(body io.Reader, path string, limit int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create chunk file: %w", err)
	}
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(readErrors{body}, limit+1))
	if err != nil {
		var re bodyError
		if errors.As(err, &re) {
			return n, fmt.Errorf("%w: the upload broke off after %d bytes: %v", ErrInvalid, n, re.err)
		}
		return n, fmt.Errorf("write chunk file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("sync chunk file: %w", err)
	}
	return n, nil
}

// readErrors marks the errors of reading the request body, so that they
// can be told from the errors of writing the file.
type readErrors struct{ r io.Reader }

type bodyError struct{ err error }

func (e bodyError) Error() string { return e.err.Error() }
func (e bodyError) Unwrap() error { return e.err }

func (r readErrors) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = bodyError{err}
	}
	return n, err
}

// commitChunk writes the chunk file's bytes into the upload file at
// offset and syncs it.
func commitChunk(chunk, part string, offset int64) error {
	in, err := os.Open(chunk)
	if err != nil {
		return fmt.Errorf("open chunk file: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open upload file: %w", err)
	}
	if _, err := io.Copy(io.NewOffsetWriter(out, offset), in); err != nil {
		out.Close()
		return fmt.Errorf("write upload file: %w", err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("sync upload file: %w", err)
	}
	return out.Close()
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
	end, err := s.begin(id)
	if err != nil {
		return nil, err
	}
	defer end()
	if rec, err = s.Get(ctx, id); err != nil {
		return nil, err
	}
	switch rec.State {
	case store.IngestDone:
		e, ok, err := tilesetOf(ctx, s.cat, rec.TilesetID)
		if err != nil {
			return nil, err
		}
		if ok {
			return e, nil
		}
		return nil, fmt.Errorf("%w: the tileset made by this ingest was deleted", ErrState)
	case store.IngestFailed:
		return nil, fmt.Errorf("%w: processing failed: %s", ErrState, strings.Join(rec.Errors, "; "))
	case store.IngestUploaded:
	case store.IngestProcessing:
		if s.leaseHeld(rec.Ingest) {
			return nil, fmt.Errorf("%w: the ingest is being processed", ErrBusy)
		}
		// The node that processed it stopped (its lease ended): this
		// request takes it over.
	default:
		return nil, fmt.Errorf("%w: the upload is incomplete: %d of %d bytes received", ErrState, rec.Received, rec.Size)
	}
	// The claim: one conditional statement, so that of two nodes asked to
	// process the same upload at once only one does.
	from := store.IngestCond{States: []string{rec.State}, LeaseOwner: rec.LeaseOwner}
	rec.State, rec.LeaseOwner, rec.LeaseUntil = store.IngestProcessing, s.node, s.leaseTime(s.now().Add(s.lease))
	if rec.Ingest, err = s.db.UpdateIngestIf(ctx, rec.Ingest, from); err != nil {
		if errors.Is(err, store.ErrStale) {
			return nil, fmt.Errorf("%w: another request is processing this ingest", ErrBusy)
		}
		return nil, err
	}
	e, perr := s.processLeased(ctx, rec)
	rec.LeaseOwner, rec.LeaseUntil = "", ""
	owned := store.IngestCond{States: []string{store.IngestProcessing}, LeaseOwner: s.node}
	if perr != nil {
		rec.State = store.IngestFailed
		rec.Errors = append(rec.Errors, perr.Error())
		if !errors.Is(perr, ErrInvalid) {
			// Not the client's fault (a disk error, a cancelled request):
			// let them try again.
			rec.State = store.IngestUploaded
			rec.Errors = nil
		} else {
			s.dropUpload(context.WithoutCancel(ctx), id)
		}
		if _, err := s.db.UpdateIngestIf(context.WithoutCancel(ctx), rec.Ingest, owned); err != nil {
			s.log.Error("record ingest failure", "id", id, "err", err)
		}
		return nil, perr
	}
	rec.State = store.IngestDone
	rec.TilesetID = e.ID
	if _, err := s.db.UpdateIngestIf(context.WithoutCancel(ctx), rec.Ingest, owned); err != nil {
		return nil, err
	}
	s.dropUpload(context.WithoutCancel(ctx), id)
	return e, nil
}

// tilesetOf returns the catalog's entry of the tileset an ingest made.
// When this node does not have it, its record is read again first: another
// node may have made it a moment ago, its change notification still on
// the way.
func tilesetOf(ctx context.Context, cat *catalog.Catalog, id string) (*catalog.Entry, bool, error) {
	if e, ok := cat.ByID(id); ok {
		return e, true, nil
	}
	if err := cat.SyncOne(ctx, id); err != nil {
		return nil, false, fmt.Errorf("read the record of tileset %s: %w", id, err)
	}
	e, ok := cat.ByID(id)
	return e, ok, nil
}

// dropUpload removes the uploaded bytes of a processed ingest.
func (s *Service) dropUpload(ctx context.Context, id string) {
	os.Remove(s.partPath(id))
	if s.chunks != nil {
		if err := s.chunks.remove(ctx, id); err != nil {
			s.log.Warn("the chunks of a processed upload could not be removed", "ingest", id, "err", err)
		}
	}
}

// processLeased is process while the lease is renewed every quarter of
// it; when the renewal finds the ingest no longer held by this service
// (another node took it over after the lease ended, or it was changed
// meanwhile) processing is cancelled.
func (s *Service) processLeased(ctx context.Context, rec Record) (*catalog.Entry, error) {
	work, stop := lease.Hold(ctx, s.lease/4, func(ctx context.Context) error {
		return s.db.RenewIngest(ctx, rec.ID, s.node, s.leaseTime(s.now().Add(s.lease)), 0)
	})
	e, err := s.process(work, rec)
	if stop() && err != nil {
		err = fmt.Errorf("%w (the ingest was taken over by another node)", err)
	}
	return e, err
}

func (s *Service) process(ctx context.Context, rec Record) (*catalog.Entry, error) {
	if s.chunks != nil {
		if st, err := os.Stat(s.partPath(rec.ID)); err != nil || st.Size() != rec.Size {
			if err := s.chunks.assemble(ctx, rec.ID, rec.Size, s.partPath(rec.ID)); err != nil {
				os.Remove(s.partPath(rec.ID))
				return nil, err
			}
		}
	}
	tmp, k, err := build(ctx, s.partPath(rec.ID), rec.Filename, filepath.Join(s.cat.Dir(), ".ingest-"+rec.ID), s.log, RasterOptions{})
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp) // gone after a successful rename anyway
	// The features go first: a tileset in the catalog made from GeoJSON
	// always has them.
	if err := keepFeatures(ctx, s.features, s.partPath(rec.ID), rec.DocumentID, k, s.share); err != nil {
		return nil, err
	}
	e, err := s.cat.AddFile(ctx, tmp, baseName(rec.Filename), k.ext(), rec.DocumentID)
	if err != nil {
		os.Remove(FeaturesPath(s.features, rec.DocumentID))
		return nil, fmt.Errorf("add the tileset: %w", err)
	}
	return e, nil
}

// baseName is a tileset's name made from its upload's file name: without
// the extension (and without ".geojson" before it).
func baseName(filename string) string {
	name := strings.TrimSuffix(filename, filepath.Ext(filename))
	if strings.EqualFold(filepath.Ext(name), ".geojson") || strings.EqualFold(filepath.Ext(name), ".json") {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	return name
}

// build checks or converts the uploaded file input into a tileset file
// at tmpBase plus the output's extension, returned with the input's kind:
// MBTiles and PMTiles are checked and copied, GeoJSON becomes a vector
// MBTiles, a GeoTIFF a raster MBTiles (as raster says). raster.Progress,
// when set, is told the fraction done. On error nothing is left at the
// output.
func build(ctx context.Context, input, filename, tmpBase string, log *slog.Logger, raster RasterOptions) (string, kind, error) {
	k, err := sniffFile(input)
	if err != nil {
		return "", 0, err
	}
	if raster.Progress == nil {
		raster.Progress = func(float64) {}
	}
	name := baseName(filename)
	tmp := tmpBase + k.ext()
	switch k {
	case kindMBTiles, kindPMTiles:
		if err := CheckTileset(ctx, input, k); err != nil {
			return "", 0, err
		}
		raster.Progress(0.5)
		if err := copyFile(input, tmp); err != nil {
			os.Remove(tmp)
			return "", 0, err
		}
	case kindGeoJSON:
		f, err := os.Open(input)
		if err != nil {
			return "", 0, fmt.Errorf("open upload: %w", err)
		}
		err = ConvertGeoJSON(ctx, f, tmp, name, log)
		f.Close()
		if err != nil {
			return "", 0, err
		}
	case kindGeoTIFF:
		if err := ConvertGeoTIFF(ctx, input, tmp, name, raster); err != nil {
			return "", 0, err
		}
	}
	return tmp, k, nil
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
	kindGeoTIFF
)

func (k kind) ext() string {
	switch k {
	case kindMBTiles:
		return ".mbtiles"
	case kindPMTiles:
		return ".pmtiles"
	}
	return ".mbtiles" // GeoJSON and GeoTIFF become MBTiles tilesets
}

// raster tells whether the kind makes raster tiles for certain (a
// GeoTIFF), vector whether it makes vector tiles (GeoJSON); MBTiles and
// PMTiles may hold either.
func (k kind) raster() bool { return k == kindGeoTIFF }
func (k kind) vector() bool { return k == kindGeoJSON }

// kindFromName checks the extension of an upload's file name.
func kindFromName(name string) (kind, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".mbtiles":
		return kindMBTiles, nil
	case ".pmtiles":
		return kindPMTiles, nil
	case ".geojson", ".json":
		return kindGeoJSON, nil
	case ".tif", ".tiff":
		return kindGeoTIFF, nil
	}
	return 0, fmt.Errorf("%w: %q: accepted uploads are .mbtiles, .pmtiles, .geojson (or .json) and GeoTIFF (.tif, .tiff) files", ErrInvalid, name)
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
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return kindGeoTIFF, nil
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return kindGeoJSON, nil
	}
	return 0, fmt.Errorf("%w: unknown file format: not an MBTiles (SQLite), PMTiles, GeoJSON or GeoTIFF file", ErrInvalid)
}
