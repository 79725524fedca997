package prerender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/lease"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/store"
)

// Errors of the jobs that callers map to statuses.
var (
	// ErrInvalid is wrapped by errors in what the client asked (4xx).
	ErrInvalid = errors.New("invalid pre-render job")
	// ErrNotFound is wrapped when there is no such job or map.
	ErrNotFound = errors.New("not found")
)

// MaxJobTiles bounds the tiles of one job.
const MaxJobTiles = 200_000

// Request is what a pre-render job is asked to render: the raster tiles
// of a map, as a new tileset.
type Request struct {
	// Map is the map's id.
	Map string `json:"map"`
	// Name of the tileset made (the map's id followed by "-raster" when
	// empty; made unique when taken).
	Name    string `json:"name"`
	MinZoom int    `json:"minzoom"`
	MaxZoom int    `json:"maxzoom"`
	// Bounds are west, south, east, north (the world when zero).
	Bounds [4]float64 `json:"bounds"`
	// Format is png, jpeg or webp (the map's format when empty).
	Format string `json:"format"`
}

// JobOptions tune Jobs.
type JobOptions struct {
	// Lease is how long a node holds a job without renewing it (renewed
	// every quarter of it) before another may take it over; a minute when
	// zero.
	Lease time.Duration
	// Poll is how often the worker looks for jobs nobody holds (5 s, or
	// half the lease when shorter, when zero).
	Poll   time.Duration
	Logger *slog.Logger
	// Workers render the tiles of a job at once (0: one per core).
	Workers int
}

// Jobs runs pre-render jobs: a job is recorded in the state database
// (kind store.KindPrerender) and rendered by a background worker on the
// node that claims it (store.DB.ClaimNext: FOR UPDATE SKIP LOCKED on
// PostgreSQL), under a lease renewed while it renders. A node that dies
// leaves its lease to end; another node then takes the job over and
// renders it again. The tileset is rendered under a hidden name and added
// to the catalog only after a last renewal, and the job is marked done by
// a statement that requires the lease: one tileset per job.
type Jobs struct {
	db     *store.DB
	cat    *catalog.Catalog
	maps   *catalog.Maps
	images *mapimage.Service
	opts   JobOptions
	node   string
	log    *slog.Logger

	worker *lease.Worker
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewJobs makes the job service; Start runs its worker.
func NewJobs(ctx context.Context, db *store.DB, cat *catalog.Catalog, maps *catalog.Maps, images *mapimage.Service, opts JobOptions) *Jobs {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	j := &Jobs{db: db, cat: cat, maps: maps, images: images, opts: opts, node: uuid.NewString(), log: opts.Logger}
	j.worker = lease.NewWorker(db, store.KindPrerender, j.node, lease.WorkerOptions{Lease: opts.Lease, Poll: opts.Poll, Logger: opts.Logger, What: "pre-render job", Key: "job"})
	j.ctx, j.cancel = context.WithCancel(context.WithoutCancel(ctx))
	// Files a render of this node left when it stopped.
	if leftovers, _ := filepath.Glob(filepath.Join(cat.Dir(), ".render-*")); len(leftovers) > 0 {
		for _, f := range leftovers {
			os.Remove(f)
		}
	}
	return j
}

// Start runs the worker until Close.
func (j *Jobs) Start() {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		j.worker.Run(j.ctx, j.run)
	}()
}

// Close stops the worker; a job it was rendering is given back (its lease
// released) so that another node, or the next start, takes it at once.
func (j *Jobs) Close() {
	j.cancel()
	j.wg.Wait()
}

// options checks a request and turns it into the options of Run.
func (j *Jobs) options(req Request) (*catalog.Map, Options, error) {
	m, ok := j.maps.Get(req.Map)
	if !ok {
		return nil, Options{}, fmt.Errorf("%w: map %q", ErrNotFound, req.Map)
	}
	if m.State != catalog.StateOK {
		return nil, Options{}, fmt.Errorf("%w: map %q is not usable: %s", ErrInvalid, req.Map, strings.Join(m.Problems, "; "))
	}
	o := Options{MinZoom: req.MinZoom, MaxZoom: req.MaxZoom, Bounds: req.Bounds, Workers: j.opts.Workers}
	if req.Format != "" {
		f, err := imageenc.ParseFormat(req.Format)
		if err != nil {
			return nil, Options{}, fmt.Errorf("%w: format %q: %w", ErrInvalid, req.Format, err)
		}
		o.Format = f
	}
	o = withDefaults(o)
	if err := check(o); err != nil {
		return nil, Options{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return m, o, nil
}

// Create records a job; a worker (of this node or another) renders it.
func (j *Jobs) Create(ctx context.Context, req Request) (store.Ingest, error) {
	if req.Name == "" {
		req.Name = req.Map + "-raster"
	}
	if !utf8.ValidString(req.Name) || len(req.Name) > 200 || strings.ContainsAny(req.Name, "/\\\x00") {
		return store.Ingest{}, fmt.Errorf("%w: name must be a plain name of at most 200 bytes", ErrInvalid)
	}
	_, o, err := j.options(req)
	if err != nil {
		return store.Ingest{}, err
	}
	if n := Count(o); n > MaxJobTiles {
		return store.Ingest{}, fmt.Errorf("%w: %d tiles is more than the %d one job may render: fewer zooms or smaller bounds", ErrInvalid, n, MaxJobTiles)
	}
	params, _ := json.Marshal(req)
	in, err := j.db.CreateIngest(ctx, store.Ingest{
		ID: uuid.NewString(), DocumentID: uuid.NewString(), Filename: req.Name, Size: int64(Count(o)),
		State: store.IngestProcessing, Kind: store.KindPrerender, Params: string(params),
	})
	if err != nil {
		return store.Ingest{}, err
	}
	j.log.Info("pre-render job created", "job", in.ID, "map", req.Map, "zooms", fmt.Sprintf("%d-%d", o.MinZoom, o.MaxZoom), "tiles", in.Size)
	j.worker.Wake()
	return in, nil
}

// Get returns a job.
func (j *Jobs) Get(ctx context.Context, id string) (store.Ingest, error) {
	if _, err := uuid.Parse(id); err != nil {
		return store.Ingest{}, fmt.Errorf("%w: job %s", ErrNotFound, id)
	}
	in, err := j.db.Ingest(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && in.Kind != store.KindPrerender) {
		return store.Ingest{}, fmt.Errorf("%w: job %s", ErrNotFound, id)
	}
	return in, err
}

// JobRequest reads what a job was asked to do.
func JobRequest(in store.Ingest) (Request, error) {
	var req Request
	if err := json.Unmarshal([]byte(in.Params), &req); err != nil {
		return Request{}, fmt.Errorf("job %s: its parameters: %w", in.ID, err)
	}
	return req, nil
}

// run renders one claimed job.
func (j *Jobs) run(ctx context.Context, c *lease.Claim) {
	in, err := j.Get(ctx, c.ID)
	if err != nil {
		return
	}
	tmp := filepath.Join(j.cat.Dir(), ".render-"+c.ID+".mbtiles")
	var e *catalog.Entry
	rerr := c.Hold(ctx, func(ctx context.Context) (err error) {
		e, err = j.render(ctx, c, in, tmp)
		return err
	})
	os.Remove(tmp)
	j.finish(ctx, in, e, rerr)
}

// render renders a job's tiles into tmp and adds them to the catalog.
func (j *Jobs) render(ctx context.Context, c *lease.Claim, in store.Ingest, tmp string) (*catalog.Entry, error) {
	req, err := JobRequest(in)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	m, o, err := j.options(req)
	if err != nil {
		return nil, err
	}
	o.Progress = func(done, total int) { c.Progress(0.95 * float64(done) / float64(total)) }
	if _, err := Run(ctx, j.images, m, tmp, o); err != nil {
		return nil, err
	}
	// Last check that the job is still this node's before the tileset
	// becomes visible.
	if err := c.Renew(ctx, 0.95); err != nil {
		return nil, err
	}
	return j.cat.AddFile(ctx, tmp, in.Filename, ".mbtiles", in.DocumentID)
}

// finish records how a job ended (a job left processing when the worker
// stops is given back by the worker).
func (j *Jobs) finish(ctx context.Context, in store.Ingest, e *catalog.Entry, rerr error) {
	bg := context.WithoutCancel(ctx)
	cond := store.IngestCond{States: []string{store.IngestProcessing}, LeaseOwner: j.node}
	cur, err := j.Get(bg, in.ID)
	if err != nil {
		return
	}
	switch {
	case rerr == nil:
		cur.State, cur.Progress, cur.TilesetID, cur.LeaseOwner, cur.LeaseUntil = store.IngestCompleted, 1, e.ID, "", ""
		if _, err := j.db.UpdateIngestIf(bg, cur, cond); err != nil {
			j.log.Error("record a finished pre-render job", "job", in.ID, "err", err)
			return
		}
		j.log.Info("pre-render job completed", "job", in.ID, "tileset", e.Name)
	case ctx.Err() != nil:
		// Closing: the worker gives the job back.
	case errors.Is(rerr, context.Canceled) || errors.Is(rerr, store.ErrStale):
		// Taken over by another node: it records the end.
	default:
		cur.State, cur.LeaseOwner, cur.LeaseUntil = store.IngestFailed, "", ""
		cur.Errors = append(cur.Errors, rerr.Error())
		j.db.UpdateIngestIf(bg, cur, cond)
		j.log.Error("pre-render job failed", "job", in.ID, "err", rerr)
	}
}
