package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/lease"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// Upload types of dataset ingests.
const (
	// UploadS3Multipart: the client PUTs parts to presigned URLs (of S3, or
	// of this server when no S3 is configured) and names their ETags to
	// process.
	UploadS3Multipart = "s3_multipart"
	// UploadResumable: the client PUTs the file, whole or in chunks with
	// Content-Range, to the ingest's upload URL.
	UploadResumable = "resumable"
)

// Output types a client may ask for.
const (
	OutputRaster = "raster_tileset"
	OutputVector = "vector_tileset"
	// OutputImage cuts a picture (PNG, JPEG, TIFF) into a pixel pyramid
	// served at /images/{document id}/ (package pyramid).
	OutputImage = "image"
)

// More errors of dataset ingests.
var (
	// ErrQuota is wrapped when an ingest would take the account past its
	// storage quota.
	ErrQuota = errors.New("storage quota exceeded")
	// ErrForbidden is wrapped when a part URL is refused (bad signature,
	// expired).
	ErrForbidden = errors.New("forbidden")
)

// DatasetOptions tune Datasets.
type DatasetOptions struct {
	// MaxSize is the largest accepted file, in bytes.
	MaxSize int64
	// Quota bounds the bytes of all tilesets plus the ingests under way (0:
	// no bound).
	Quota int64
	// Blob takes the multipart uploads (S3, or a blob.Local when none is
	// configured); required.
	Blob blob.Store
	// Chunks, when set (the shared S3 storage of several nodes), keeps
	// the chunks of resumable uploads as objects, so that the chunks of
	// one upload may arrive at different nodes; without it they are
	// written to this node's uploads directory.
	Chunks blob.Files
	// PartSize is the smallest part size offered (blob.MinPartSize when
	// zero); larger files get larger parts to stay within blob.MaxParts.
	PartSize int64
	// URLExpiry is how long part URLs stay valid (DefaultURLExpiry when
	// zero). Reading the ingest again gives new ones.
	URLExpiry time.Duration
	// Expiry cancels uploads that received nothing for this long
	// (DefaultExpiry when zero).
	Expiry time.Duration
	// Retention purges the records of finished ingests (completed,
	// canceled, failed) this long after their last change
	// (DefaultRetention when zero).
	Retention time.Duration
	// Lease is how long a node holds a processing ingest without renewing
	// it before another may take it over (DefaultLease when zero).
	Lease time.Duration
	// Poll is how often the worker looks for processing ingests nobody
	// holds (when zero: DefaultPoll, or half the lease when that is
	// shorter).
	Poll time.Duration
	// RetryDelay is the wait before processing again after a failure that
	// was the server's (DefaultRetryDelay when zero); after MaxAttempts
	// such failures the ingest fails.
	RetryDelay time.Duration
	// RasterFormat is the tile format made from GeoTIFFs: PNG (when empty)
	// or WebP, both lossless.
	RasterFormat imageenc.Format
	// FeaturesDir, when set, keeps each GeoJSON upload there as
	// <tileset id>.geojson beside the tileset made from it.
	FeaturesDir string
	// ImagesDir is where OutputImage ingests put their pyramids (<document
	// id>.mbtiles); empty refuses them.
	ImagesDir string
	// Share, when set, is given each file kept in FeaturesDir or ImagesDir
	// once it is written, before the ingest completes.
	Share  Share
	Logger *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Defaults of DatasetOptions.
const (
	DefaultURLExpiry  = 6 * time.Hour
	DefaultLease      = lease.DefaultLease
	DefaultPoll       = lease.DefaultPoll
	DefaultRetryDelay = 30 * time.Second
	MaxAttempts       = 3
)

// Datasets runs the account API's dataset ingests: the upload (multipart
// or resumable), and processing by a background worker that holds a lease
// on the ingest in the database, so that an ingest whose node stopped is
// taken over (by this node after a restart, or by another).
type Datasets struct {
	db   *store.DB
	cat  *catalog.Catalog
	dir  string
	opts DatasetOptions
	node string
	log  *slog.Logger

	busy busySet
	mu   sync.Mutex // guards attempts
	// attempts counts the server-side failures of each ingest here.
	attempts map[string]int

	worker *lease.Worker
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// hook, when set (by tests), runs at the stages "commit" (the tileset
	// is built, not yet in the catalog) and "committed" (it is in the
	// catalog, the ingest not yet completed); an error stops processing.
	hook func(ctx context.Context, stage, id string) error
}

// NewDatasets starts the dataset ingest service over the uploads directory
// dir (resumable uploads and downloaded objects) and its worker.
func NewDatasets(ctx context.Context, db *store.DB, cat *catalog.Catalog, dir string, opts DatasetOptions) (*Datasets, error) {
	if opts.Blob == nil {
		return nil, errors.New("dataset ingest: no blob store")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make dataset uploads directory: %w", err)
	}
	if opts.PartSize <= 0 {
		opts.PartSize = blob.MinPartSize
	}
	if opts.URLExpiry <= 0 {
		opts.URLExpiry = DefaultURLExpiry
	}
	if opts.Expiry <= 0 {
		opts.Expiry = DefaultExpiry
	}
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	d := &Datasets{db: db, cat: cat, dir: dir, opts: opts, node: uuid.NewString(), log: opts.Logger,
		attempts: map[string]int{}}
	d.worker = lease.NewWorker(db, store.KindDataset, d.node, lease.WorkerOptions{Lease: opts.Lease, Poll: opts.Poll, Now: opts.Now, Logger: opts.Logger, What: "dataset ingest", Key: "ingest"})
	d.ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return d, nil
}

// Start runs the worker, and the hourly expiry of uploads and purge of
// finished ingests, until Close.
func (d *Datasets) Start() {
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		d.worker.Run(d.ctx, d.run)
	}()
	go d.tidy()
}

// Close stops the worker; an ingest it was processing is given back (its
// lease released) so that the next start takes it up at once.
func (d *Datasets) Close() error {
	d.cancel()
	d.wg.Wait()
	return nil
}

// Blob is the store of the multipart uploads.
func (d *Datasets) Blob() blob.Store { return d.opts.Blob }

// DatasetCreate is what a client asks to start an ingest with.
type DatasetCreate struct {
	Filename string
	Size     int64
	// OutputType is "", OutputRaster or OutputVector.
	OutputType string
	// UploadTypes are the client's upload types in its order of
	// preference; empty means s3_multipart.
	UploadTypes []string
	// DocumentID names the tileset to replace; empty makes a new one.
	DocumentID string
}

// PartURL is where one part of a multipart upload goes.
type PartURL struct {
	Number int
	URL    string
}

// DatasetRecord is an ingest as the API shows it.
type DatasetRecord struct {
	store.Ingest
	// Received is the bytes of a resumable upload received so far.
	Received int64
	// Parts are the part URLs of a multipart upload still open.
	Parts []PartURL
}

// hold marks the ingest busy for a request and loads it.
func (d *Datasets) hold(ctx context.Context, id string) (store.Ingest, func(), error) {
	end, err := d.busy.begin(id)
	if err != nil {
		return store.Ingest{}, nil, err
	}
	in, err := d.load(ctx, id)
	if err != nil {
		end()
		return store.Ingest{}, nil, err
	}
	return in, end, nil
}

func (d *Datasets) partPath(id string) string  { return filepath.Join(d.dir, id+".part") }
func (d *Datasets) chunkPath(id string) string { return filepath.Join(d.dir, id+".chunk") }
func objectKey(id string) string               { return "ingests/" + id }

// partSize is the part size for a file: at least the configured one, and
// large enough for blob.MaxParts parts, in whole MiB.
func (d *Datasets) partSize(size int64) int64 {
	ps := max(d.opts.PartSize, (size+blob.MaxParts-1)/blob.MaxParts)
	if ps > d.opts.PartSize {
		ps = (ps + 1<<20 - 1) &^ (1<<20 - 1)
	}
	return ps
}

// Create starts an ingest.
func (d *Datasets) Create(ctx context.Context, req DatasetCreate) (DatasetRecord, error) {
	if err := checkFilename(req.Filename); err != nil {
		return DatasetRecord{}, err
	}
	if req.Size <= 0 {
		return DatasetRecord{}, fmt.Errorf("%w: size must be a positive number of bytes", ErrInvalid)
	}
	if d.opts.MaxSize > 0 && req.Size > d.opts.MaxSize {
		return DatasetRecord{}, fmt.Errorf("%w: %d bytes is more than the maximum of %d bytes", ErrTooLarge, req.Size, d.opts.MaxSize)
	}
	var k kind
	var err error
	if req.OutputType == OutputImage {
		if err := d.checkImage(req); err != nil {
			return DatasetRecord{}, err
		}
	} else if k, err = kindFromName(req.Filename); err != nil {
		return DatasetRecord{}, err
	}
	switch req.OutputType {
	case "", OutputImage:
	case OutputRaster:
		if k.vector() {
			return DatasetRecord{}, fmt.Errorf("%w: a GeoJSON file makes a vector tileset, not a raster_tileset", ErrInvalid)
		}
	case OutputVector:
		if k.raster() {
			return DatasetRecord{}, fmt.Errorf("%w: a GeoTIFF makes a raster tileset, not a vector_tileset", ErrInvalid)
		}
	default:
		return DatasetRecord{}, fmt.Errorf("%w: output type %q is not raster_tileset, vector_tileset or image", ErrInvalid, req.OutputType)
	}
	upload := ""
	if len(req.UploadTypes) == 0 {
		upload = UploadS3Multipart
	}
	for _, t := range req.UploadTypes {
		if t == UploadS3Multipart || t == UploadResumable {
			upload = t
			break
		}
	}
	if upload == "" {
		return DatasetRecord{}, fmt.Errorf("%w: none of the upload types %q is supported: use s3_multipart or resumable", ErrInvalid, req.UploadTypes)
	}
	var replaced int64
	if req.DocumentID != "" {
		if _, err := uuid.Parse(req.DocumentID); err != nil {
			return DatasetRecord{}, fmt.Errorf("%w: tileset %s", ErrNotFound, req.DocumentID)
		}
		e, ok := d.cat.ByID(req.DocumentID)
		if !ok {
			return DatasetRecord{}, fmt.Errorf("%w: tileset %s", ErrNotFound, req.DocumentID)
		}
		if e.Storage != store.StorageFile {
			return DatasetRecord{}, fmt.Errorf("%w: tileset %s is a remote archive and cannot be replaced", ErrInvalid, req.DocumentID)
		}
		replaced = e.Size()
	}
	if err := d.checkQuota(ctx, req.Size-replaced); err != nil {
		return DatasetRecord{}, err
	}
	in := store.Ingest{
		ID: uuid.NewString(), DocumentID: req.DocumentID, Filename: req.Filename, Size: req.Size, State: store.IngestUpload,
		Kind: store.KindDataset, UploadType: upload, OutputType: req.OutputType,
	}
	// TilesetID names the tileset the ingest replaces, or is empty for a
	// new one (DocumentID is then the id it will get) until it is made.
	if in.DocumentID == "" {
		in.DocumentID = uuid.NewString()
	} else {
		in.TilesetID = req.DocumentID
	}
	if upload == UploadS3Multipart {
		in.ObjectKey, in.PartSize = objectKey(in.ID), d.partSize(req.Size)
		if in.UploadID, err = d.opts.Blob.CreateMultipart(ctx, in.ObjectKey); err != nil {
			return DatasetRecord{}, fmt.Errorf("begin the upload: %w", err)
		}
	}
	created, err := d.reserve(ctx, in, replaced)
	if err != nil {
		if in.UploadID != "" {
			d.opts.Blob.Abort(context.WithoutCancel(ctx), in.ObjectKey, in.UploadID)
		}
		return DatasetRecord{}, err
	}
	in = created
	if upload == UploadResumable && d.opts.Chunks == nil {
		f, err := os.Create(d.partPath(in.ID))
		if err != nil {
			d.db.DeleteIngest(context.WithoutCancel(ctx), in.ID)
			return DatasetRecord{}, fmt.Errorf("create upload file: %w", err)
		}
		f.Close()
	}
	d.log.Info("dataset ingest created", "ingest", in.ID, "file", in.Filename, "size", in.Size, "upload", upload)
	return d.record(ctx, in)
}

// reserve writes the new ingest's record. With a quota, the record is
// written only if the tilesets plus the ingests under way plus this one
// stay within it, as one step in the database (store.CreateIngestWithin):
// creations at the same moment, on this node or others, cannot together
// pass the quota. replaced is the size of the tileset the ingest replaces.
func (d *Datasets) reserve(ctx context.Context, in store.Ingest, replaced int64) (store.Ingest, error) {
	if d.opts.Quota <= 0 {
		return d.db.CreateIngest(ctx, in)
	}
	tilesets := d.tilesetBytes()
	created, used, err := d.db.CreateIngestWithin(ctx, in, tilesets-replaced, d.opts.Quota)
	if errors.Is(err, store.ErrOverQuota) {
		return store.Ingest{}, fmt.Errorf("%w: %d bytes are used of the quota of %d bytes; this ingest needs %d more",
			ErrQuota, used+replaced, d.opts.Quota, in.Size-replaced)
	}
	return created, err
}

// checkQuota refuses adding bytes when the tilesets plus the ingests under
// way plus them would pass the quota. It is the early check, before an
// upload is begun in S3; reserve is the one that holds.
func (d *Datasets) checkQuota(ctx context.Context, adding int64) error {
	if d.opts.Quota <= 0 {
		return nil
	}
	used, err := d.Used(ctx)
	if err != nil {
		return err
	}
	if used+adding > d.opts.Quota {
		return fmt.Errorf("%w: %d bytes are used of the quota of %d bytes; this ingest needs %d more", ErrQuota, used, d.opts.Quota, adding)
	}
	return nil
}

// Used is the storage counted against the quota: the files of the
// tilesets plus the declared sizes of the ingests not yet completed.
func (d *Datasets) Used(ctx context.Context) (int64, error) {
	inFlight, err := d.db.IngestBytesInFlight(ctx, store.KindDataset)
	if err != nil {
		return 0, err
	}
	return d.tilesetBytes() + inFlight, nil
}

// tilesetBytes is the size of the tilesets' files.
func (d *Datasets) tilesetBytes() int64 {
	var n int64
	for _, e := range d.cat.List() {
		n += e.Size()
	}
	return n
}

// Get returns an ingest; while a multipart upload is open it carries new
// part URLs.
func (d *Datasets) Get(ctx context.Context, id string) (DatasetRecord, error) {
	in, err := d.load(ctx, id)
	if err != nil {
		return DatasetRecord{}, err
	}
	return d.record(ctx, in)
}

func (d *Datasets) load(ctx context.Context, id string) (store.Ingest, error) {
	if _, err := uuid.Parse(id); err != nil {
		return store.Ingest{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	in, err := d.db.Ingest(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && in.Kind != store.KindDataset) {
		return store.Ingest{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return in, err
}

func (d *Datasets) record(ctx context.Context, in store.Ingest) (DatasetRecord, error) {
	rec := DatasetRecord{Ingest: in}
	switch {
	case in.State != store.IngestUpload:
	case in.UploadType == UploadResumable && d.opts.Chunks != nil:
		n, err := chunks{d.opts.Chunks}.received(ctx, in.ID)
		if err != nil {
			return DatasetRecord{}, err
		}
		rec.Received = n
	case in.UploadType == UploadResumable:
		if st, err := os.Stat(d.partPath(in.ID)); err == nil {
			rec.Received = st.Size()
		}
	case in.UploadID != "":
		n := int((in.Size + in.PartSize - 1) / in.PartSize)
		for i := 1; i <= n; i++ {
			u, err := d.opts.Blob.PartURL(ctx, in.ObjectKey, in.UploadID, i, d.opts.URLExpiry)
			if err != nil {
				return DatasetRecord{}, err
			}
			rec.Parts = append(rec.Parts, PartURL{Number: i, URL: u})
		}
	}
	return rec, nil
}

// PutPart receives a part PUT to a URL of the local blob store; ErrNotFound
// when the store is S3's (its URLs point there).
func (d *Datasets) PutPart(ctx context.Context, uploadID string, part int, query url.Values, body io.Reader) (string, error) {
	l, ok := d.opts.Blob.(*blob.Local)
	if !ok {
		return "", fmt.Errorf("%w: parts go to S3", ErrNotFound)
	}
	etag, err := l.PutPart(ctx, uploadID, part, query, body)
	switch {
	case errors.Is(err, blob.ErrForbidden):
		return "", fmt.Errorf("%w: %w", ErrForbidden, err)
	case errors.Is(err, blob.ErrNoUpload):
		return "", fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, blob.ErrTooLarge):
		return "", fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return etag, err
}

// Upload writes bytes of a resumable upload (see Service.Upload).
func (d *Datasets) Upload(ctx context.Context, id string, body io.Reader, rng *Range) (DatasetRecord, error) {
	in, end, err := d.hold(ctx, id)
	if err != nil {
		return DatasetRecord{}, err
	}
	defer end()
	if in.UploadType != UploadResumable {
		return DatasetRecord{}, fmt.Errorf("%w: this ingest takes an s3_multipart upload: PUT the parts to their URLs", ErrState)
	}
	if in.State != store.IngestUpload {
		return DatasetRecord{}, fmt.Errorf("%w: the ingest is %s", ErrState, in.State)
	}
	rec, err := d.record(ctx, in)
	if err != nil {
		return DatasetRecord{}, err
	}
	if d.opts.Chunks != nil {
		// The chunk goes to the shared store: the next may reach
		// another node.
		defer os.Remove(d.chunkPath(id))
		start, err := receiveChunk(d.chunkPath(id), in.Size, rec.Received, body, rng)
		if err != nil {
			return rec, err
		}
		cs := chunks{d.opts.Chunks}
		if err := cs.put(ctx, id, d.chunkPath(id), start); err != nil {
			return rec, err
		}
		if rec.Received, err = cs.received(ctx, id); err != nil {
			return rec, err
		}
	} else if rec.Received, err = writeChunk(d.partPath(id), d.chunkPath(id), in.Size, rec.Received, body, rng); err != nil {
		return rec, err
	}
	// Recording the change marks activity for the expiry.
	if rec.Ingest, err = d.db.UpdateIngestIf(context.WithoutCancel(ctx), in, store.IngestCond{States: []string{store.IngestUpload}}); err != nil {
		return rec, err
	}
	return rec, nil
}

// UploadResult is what the client says of its upload when it asks to
// process: the type, and the parts' ETags for a multipart upload.
type UploadResult struct {
	Type  string
	Parts []blob.Part
}

// Process ends the upload and hands the ingest to the worker: it answers
// at once with the ingest in state processing (or as it is, when it is
// past that already).
func (d *Datasets) Process(ctx context.Context, id string, res UploadResult) (DatasetRecord, error) {
	in, end, err := d.hold(ctx, id)
	if err != nil {
		return DatasetRecord{}, err
	}
	defer end()
	switch in.State {
	case store.IngestProcessing, store.IngestCompleted:
		return d.record(ctx, in)
	case store.IngestUpload:
	default:
		return DatasetRecord{}, fmt.Errorf("%w: the ingest is %s", ErrState, in.State)
	}
	if res.Type != "" && res.Type != in.UploadType {
		return DatasetRecord{}, fmt.Errorf("%w: upload_result.type %q: this ingest's upload is %s", ErrInvalid, res.Type, in.UploadType)
	}
	switch in.UploadType {
	case UploadResumable:
		rec, err := d.record(ctx, in)
		if err != nil {
			return DatasetRecord{}, err
		}
		if rec.Received != in.Size {
			return DatasetRecord{}, fmt.Errorf("%w: the upload is incomplete: %d of %d bytes received", ErrState, rec.Received, in.Size)
		}
	case UploadS3Multipart:
		if err := d.complete(ctx, in, res.Parts); err != nil {
			return DatasetRecord{}, err
		}
	}
	in.State, in.UploadID, in.Progress, in.LeaseOwner, in.LeaseUntil = store.IngestProcessing, "", 0, "", ""
	if in, err = d.db.UpdateIngestIf(context.WithoutCancel(ctx), in, store.IngestCond{States: []string{store.IngestUpload}}); err != nil {
		if errors.Is(err, store.ErrStale) {
			return d.Get(ctx, id)
		}
		return DatasetRecord{}, err
	}
	d.log.Info("dataset ingest uploaded, processing", "ingest", id, "file", in.Filename)
	d.worker.Wake()
	return d.record(ctx, in)
}

// complete ends a multipart upload with the client's parts and checks the
// object's size. A completion that happened before (a retry after a crash
// or a lost answer) is recognised by the object being there whole.
func (d *Datasets) complete(ctx context.Context, in store.Ingest, parts []blob.Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("%w: upload_result.parts is required: the part_id and etag of every part", ErrInvalid)
	}
	err := d.opts.Blob.Complete(ctx, in.ObjectKey, in.UploadID, parts)
	switch {
	case errors.Is(err, blob.ErrParts):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	case errors.Is(err, blob.ErrNoUpload):
		if n, serr := d.opts.Blob.Size(ctx, in.ObjectKey); serr != nil || n != in.Size {
			return fmt.Errorf("%w: the multipart upload is gone", ErrState)
		}
	case err != nil:
		return err
	}
	n, err := d.opts.Blob.Size(ctx, in.ObjectKey)
	if err != nil {
		return err
	}
	if n != in.Size {
		// The parts make another file than declared: start again.
		d.opts.Blob.Delete(context.WithoutCancel(ctx), in.ObjectKey)
		in.State, in.UploadID = store.IngestFailed, ""
		in.Errors = append(in.Errors, fmt.Sprintf("the uploaded parts have %d bytes, the declared size is %d", n, in.Size))
		d.db.UpdateIngestIf(context.WithoutCancel(ctx), in, store.IngestCond{States: []string{store.IngestUpload}})
		return fmt.Errorf("%w: the uploaded parts have %d bytes, the declared size is %d", ErrInvalid, n, in.Size)
	}
	return nil
}

// Cancel ends an ingest that is uploading or processing: its state becomes
// canceled and its bytes are removed (the multipart upload aborted, the
// object and local files deleted). Cancelling again retries the clean-up.
func (d *Datasets) Cancel(ctx context.Context, id string) (DatasetRecord, error) {
	in, err := d.load(ctx, id)
	if err != nil {
		return DatasetRecord{}, err
	}
	switch in.State {
	case store.IngestUpload, store.IngestProcessing:
		uploadID := in.UploadID
		in.State, in.UploadID, in.LeaseOwner, in.LeaseUntil = store.IngestCanceled, "", "", ""
		if in, err = d.db.UpdateIngestIf(ctx, in, store.IngestCond{States: []string{store.IngestUpload, store.IngestProcessing}}); err != nil {
			if errors.Is(err, store.ErrStale) {
				return d.Cancel(ctx, id) // it moved on meanwhile: judge again
			}
			return DatasetRecord{}, err
		}
		in.UploadID = uploadID
	case store.IngestCanceled:
	default:
		return DatasetRecord{}, fmt.Errorf("%w: the ingest is %s", ErrState, in.State)
	}
	if err := d.cleanUp(context.WithoutCancel(ctx), in); err != nil {
		return DatasetRecord{}, err
	}
	in.UploadID = ""
	d.log.Info("dataset ingest canceled", "ingest", id, "file", in.Filename)
	return d.record(ctx, in)
}

// cleanUp removes the bytes of an ingest: its open multipart upload, its
// object and its local files.
func (d *Datasets) cleanUp(ctx context.Context, in store.Ingest) error {
	var errs []error
	if in.UploadID != "" {
		if err := d.opts.Blob.Abort(ctx, in.ObjectKey, in.UploadID); err != nil && !errors.Is(err, blob.ErrNoUpload) {
			errs = append(errs, err)
		}
	}
	if in.ObjectKey != "" {
		if err := d.opts.Blob.Delete(ctx, in.ObjectKey); err != nil {
			errs = append(errs, err)
		}
	}
	if in.UploadType == UploadResumable && d.opts.Chunks != nil {
		if err := (chunks{d.opts.Chunks}).remove(ctx, in.ID); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range []string{d.partPath(in.ID), d.chunkPath(in.ID), d.outputBase(in.ID) + ".mbtiles", d.outputBase(in.ID) + ".pmtiles"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the bytes of ingest %s: %w", in.ID, err)
	}
	return nil
}

// outputBase is where a tileset is built before it enters the catalog:
// a hidden name in the tiles directory, which the catalog never lists.
func (d *Datasets) outputBase(id string) string { return filepath.Join(d.cat.Dir(), ".ingest-"+id) }

// Expire cancels the uploads that received nothing for longer than the
// expiry, and returns their ids.
func (d *Datasets) Expire(ctx context.Context) ([]string, error) {
	all, err := d.db.IngestsOfKind(ctx, store.KindDataset)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range all {
		if in.State != store.IngestUpload {
			continue
		}
		last, _ := time.Parse(time.RFC3339Nano, in.Changed)
		if st, err := os.Stat(d.partPath(in.ID)); err == nil && st.ModTime().After(last) {
			last = st.ModTime()
		}
		if d.opts.Now().Sub(last) <= d.opts.Expiry {
			continue
		}
		if _, err := d.Cancel(ctx, in.ID); err != nil {
			return out, err
		}
		d.log.Info("a dataset upload received nothing for too long and was canceled", "ingest", in.ID, "expiry", d.opts.Expiry)
		out = append(out, in.ID)
	}
	return out, nil
}

// Purge deletes the records of the ingests that finished (completed,
// canceled, failed) longer than the retention ago, and returns their ids:
// a GET of one answers 404 from then on.
func (d *Datasets) Purge(ctx context.Context) ([]string, error) {
	return purge(ctx, d.db, d.log, store.KindDataset, d.opts.Now().Add(-d.opts.Retention),
		store.IngestCompleted, store.IngestCanceled, store.IngestFailed)
}

// tidy expires the uploads that stopped and purges the finished ingests
// every hour until Close.
func (d *Datasets) tidy() {
	defer d.wg.Done()
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		if _, err := d.Expire(d.ctx); err != nil && d.ctx.Err() == nil {
			d.log.Error("expire dataset uploads", "err", err)
		}
		if _, err := d.Purge(d.ctx); err != nil && d.ctx.Err() == nil {
			d.log.Error("purge finished dataset ingests", "err", err)
		}
	}
}

func (d *Datasets) leaseTime(from time.Time) string { return from.UTC().Format(store.LeaseTime) }

// run processes one ingest the worker claimed.
func (d *Datasets) run(ctx context.Context, c *lease.Claim) {
	in, err := d.load(ctx, c.ID)
	if err != nil {
		return
	}
	var e made
	perr := c.Hold(ctx, func(ctx context.Context) (err error) {
		e, err = d.process(ctx, c, in)
		return err
	})
	d.finish(ctx, in, e, perr)
}

// finish records how processing ended.
func (d *Datasets) finish(ctx context.Context, in store.Ingest, e made, perr error) {
	bg := context.WithoutCancel(ctx)
	cond := store.IngestCond{States: []string{store.IngestProcessing}, LeaseOwner: d.node}
	cur, err := d.load(bg, in.ID)
	if err != nil {
		return
	}
	switch {
	case perr == nil:
		// The upload goes before the ingest says completed, so that a
		// completed ingest has nothing left behind (a crash in between
		// finds progress 1: the tileset is made; only this is redone).
		if err := d.cleanUp(bg, in); err != nil {
			d.log.Warn("dataset ingest completed; its upload could not be removed", "ingest", in.ID, "err", err)
		}
		cur.State, cur.Progress, cur.TilesetID, cur.LeaseOwner, cur.LeaseUntil = store.IngestCompleted, 1, e.id, "", ""
		if _, err := d.db.UpdateIngestIf(bg, cur, cond); err != nil {
			if now, lerr := d.load(bg, in.ID); lerr == nil && now.State == store.IngestCanceled && in.TilesetID == "" {
				// Cancelled while the new tileset went in place: take it out.
				if e.image {
					os.Remove(d.imagePath(e.id))
				} else if _, err := d.cat.Delete(bg, e.id); err != nil {
					d.log.Error("remove the tileset of a cancelled ingest", "ingest", in.ID, "tileset", e.id, "err", err)
				}
				return
			}
			d.log.Error("record a completed dataset ingest", "ingest", in.ID, "err", err)
			return
		}
		d.mu.Lock()
		delete(d.attempts, in.ID)
		d.mu.Unlock()
		d.log.Info("dataset ingest completed", "ingest", in.ID, "made", e.id, "name", e.name, "image", e.image)
	case errors.Is(perr, ErrInvalid):
		cur.State, cur.LeaseOwner, cur.LeaseUntil = store.IngestFailed, "", ""
		cur.Errors = append(cur.Errors, strings.TrimPrefix(perr.Error(), ErrInvalid.Error()+": "))
		if _, err := d.db.UpdateIngestIf(bg, cur, cond); err == nil {
			d.cleanUp(bg, in)
		}
		d.log.Info("dataset ingest failed", "ingest", in.ID, "err", perr)
	case ctx.Err() != nil:
		// Closing: the worker gives the ingest back for the next start.
		os.Remove(d.outputBase(in.ID) + ".mbtiles")
		os.Remove(d.outputBase(in.ID) + ".pmtiles")
	case cur.State == store.IngestCanceled:
		d.cleanUp(bg, in) // the cancel may have run while files were being made
	default:
		d.mu.Lock()
		d.attempts[in.ID]++
		n := d.attempts[in.ID]
		d.mu.Unlock()
		if n >= MaxAttempts {
			cur.State, cur.LeaseOwner, cur.LeaseUntil = store.IngestFailed, "", ""
			cur.Errors = append(cur.Errors, fmt.Sprintf("processing failed %d times on the server: %v", n, perr))
			if _, err := d.db.UpdateIngestIf(bg, cur, cond); err == nil {
				d.cleanUp(bg, in)
			}
		} else {
			cur.LeaseUntil = d.leaseTime(d.opts.Now().Add(d.opts.RetryDelay))
			d.db.UpdateIngestIf(bg, cur, cond)
		}
		d.log.Error("dataset ingest processing failed", "ingest", in.ID, "attempt", n, "err", perr)
	}
}

// process makes the tileset of an ingest and puts it in the catalog.
func (d *Datasets) process(ctx context.Context, c *lease.Claim, in store.Ingest) (made, error) {
	progress := func(f float64) { c.Progress(0.05 + 0.9*f) }
	target := in.TilesetID
	if target == "" {
		target = in.DocumentID
	}
	if in.Progress >= 1 {
		// The tileset was committed before a stop: only the end is left.
		if in.OutputType == OutputImage {
			if _, err := os.Stat(d.imagePath(in.DocumentID)); err == nil {
				return made{id: in.DocumentID, name: in.DocumentID, image: true}, nil
			}
			return made{}, fmt.Errorf("%w: the image made by this ingest was deleted", ErrInvalid)
		}
		e, ok, err := tilesetOf(ctx, d.cat, target)
		if err != nil {
			return made{}, err
		}
		if ok {
			return made{id: e.ID, name: e.Name}, nil
		}
		return made{}, fmt.Errorf("%w: the tileset made by this ingest was deleted", ErrInvalid)
	}
	input := d.partPath(in.ID)
	if in.UploadType == UploadResumable && d.opts.Chunks != nil {
		if st, err := os.Stat(input); err != nil || st.Size() != in.Size {
			os.Remove(input)
			if err := (chunks{d.opts.Chunks}).assemble(ctx, in.ID, in.Size, input); err != nil {
				os.Remove(input)
				return made{}, err
			}
		}
	}
	if in.UploadType == UploadS3Multipart {
		if st, err := os.Stat(input); err != nil || st.Size() != in.Size {
			os.Remove(input)
			if err := d.opts.Blob.Download(ctx, in.ObjectKey, input); err != nil {
				if errors.Is(err, blob.ErrNotFound) {
					return made{}, fmt.Errorf("%w: the uploaded file is gone", ErrInvalid)
				}
				return made{}, fmt.Errorf("fetch the upload: %w", err)
			}
		}
	}
	progress(0)
	if in.OutputType == OutputImage {
		return d.processImage(ctx, c, in, input, progress)
	}
	tmp, k, err := build(ctx, input, in.Filename, d.outputBase(in.ID), d.log, RasterOptions{Format: d.opts.RasterFormat, Progress: progress})
	if err != nil {
		return made{}, err
	}
	defer os.Remove(tmp)
	if err := d.checkOutput(tmp, k, in.OutputType); err != nil {
		return made{}, err
	}
	if d.hook != nil {
		if err := d.hook(ctx, "commit", in.ID); err != nil {
			return made{}, err
		}
	}
	// Last check that the ingest is still ours and wanted before the
	// tileset becomes visible.
	if err := renew(ctx, c, 0.95); err != nil {
		return made{}, err
	}
	if err := keepFeatures(ctx, d.opts.FeaturesDir, input, target, k, d.opts.Share); err != nil {
		return made{}, err
	}
	var e *catalog.Entry
	if in.TilesetID != "" {
		e, err = d.cat.ReplaceFile(ctx, in.TilesetID, tmp, k.ext())
		if errors.Is(err, catalog.ErrNotFound) {
			return made{}, fmt.Errorf("%w: the tileset to replace was deleted", ErrInvalid)
		}
	} else {
		e, err = d.cat.AddFile(ctx, tmp, baseName(in.Filename), k.ext(), in.DocumentID)
	}
	if err != nil {
		return made{}, err
	}
	// Progress 1 while processing says the tileset is made.
	if err := c.Renew(context.WithoutCancel(ctx), 1); err != nil {
		d.log.Warn("the ingest changed while its tileset was put in place", "ingest", in.ID, "err", err)
	}
	if d.hook != nil {
		if err := d.hook(ctx, "committed", in.ID); err != nil {
			return made{}, err
		}
	}
	return made{id: e.ID, name: e.Name}, nil
}

// renew extends this node's lease of a processing ingest and raises its
// progress; when the ingest is no longer processing under the lease
// (cancelled, taken over) the error wraps context.Canceled.
func renew(ctx context.Context, c *lease.Claim, progress float64) error {
	err := c.Renew(ctx, progress)
	if errors.Is(err, store.ErrStale) {
		return fmt.Errorf("the ingest was cancelled or taken over: %w: %w", context.Canceled, err)
	}
	return err
}

// checkOutput checks the kind of tiles made against the output asked for.
func (d *Datasets) checkOutput(path string, k kind, want string) error {
	if want == "" || k.raster() || k.vector() {
		return nil // checked at creation from the file name
	}
	src, err := tilesource.OpenFileAs(context.Background(), path, k.ext())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	defer src.Close()
	switch vector := src.Info().Format.Vector(); {
	case vector && want == OutputRaster:
		return fmt.Errorf("%w: the file holds vector tiles, the ingest asked for a raster_tileset", ErrInvalid)
	case !vector && want == OutputVector:
		return fmt.Errorf("%w: the file holds raster tiles, the ingest asked for a vector_tileset", ErrInvalid)
	}
	return nil
}

// made is what an ingest made: a tileset (id and name) or an image (id).
type made struct {
	id, name string
	image    bool
}

// pictureExts are the file names an image ingest takes.
var pictureExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".tif": true, ".tiff": true}

// checkImage checks the request of an image ingest.
func (d *Datasets) checkImage(req DatasetCreate) error {
	switch {
	case d.opts.ImagesDir == "":
		return fmt.Errorf("%w: this server makes no images", ErrInvalid)
	case !pictureExts[strings.ToLower(filepath.Ext(req.Filename))]:
		return fmt.Errorf("%w: %q: an image is made from a .png, .jpg, .jpeg, .tif or .tiff file", ErrInvalid, req.Filename)
	case req.DocumentID != "":
		return fmt.Errorf("%w: an image cannot replace a tileset: ingest it as a new dataset", ErrInvalid)
	}
	return nil
}

func (d *Datasets) imagePath(id string) string { return filepath.Join(d.opts.ImagesDir, id+".mbtiles") }

// processImage cuts the uploaded picture into the pyramid of image
// <document id>: PNG row by row, JPEG and TIFF within
// pyramid.MaxWholePixels.
func (d *Datasets) processImage(ctx context.Context, c *lease.Claim, in store.Ingest, input string, progress func(float64)) (made, error) {
	f, err := os.Open(input)
	if err != nil {
		return made{}, fmt.Errorf("open upload: %w", err)
	}
	defer f.Close()
	rows, _, err := pyramid.Open(f)
	if err != nil {
		if errors.Is(err, pyramid.ErrFormat) {
			return made{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return made{}, err
	}
	if err := renew(ctx, c, 0.05); err != nil {
		return made{}, err
	}
	_, err = pyramid.WriteMBTiles(ctx, rows, d.imagePath(in.DocumentID), in.DocumentID,
		pyramid.Meta{Description: "Made by Tessera from " + in.Filename}, pyramid.Options{
			Progress: func(done, total int) { progress(float64(done) / float64(total)) },
		})
	if err != nil {
		if errors.Is(err, pyramid.ErrFormat) {
			return made{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return made{}, err
	}
	if err := d.opts.Share.share(ctx, d.imagePath(in.DocumentID)); err != nil {
		os.Remove(d.imagePath(in.DocumentID))
		return made{}, fmt.Errorf("share the image: %w", err)
	}
	if err := c.Renew(context.WithoutCancel(ctx), 1); err != nil {
		d.log.Warn("the ingest changed while its image was put in place", "ingest", in.ID, "err", err)
	}
	return made{id: in.DocumentID, name: in.DocumentID, image: true}, nil
}
