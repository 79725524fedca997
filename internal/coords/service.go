package coords

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Service is the coordinate systems service: the index, read from proj.db
// on first use (or when warmed), and the PROJ engine.
type Service struct {
	path   string
	log    *slog.Logger
	once   sync.Once
	done   chan struct{}
	ix     *Index
	err    error
	engine *Engine
}

// NewService serves the registry of the proj.db at path (read when first
// needed) with PROJ when the build has it.
func NewService(path string, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{path: path, log: log, done: make(chan struct{}), engine: NewEngine(0)}
}

// Warm starts reading the index in the background.
func (s *Service) Warm() {
	s.once.Do(func() { go s.load() })
}

func (s *Service) load() {
	defer close(s.done)
	start := time.Now()
	// The index outlives any request: it is read without one's context.
	s.ix, s.err = Load(context.Background(), s.path)
	if s.err != nil {
		s.log.Error("coordinate systems index", "path", s.path, "err", s.err)
		return
	}
	s.log.Info("coordinate systems index loaded", "path", s.path, "objects", s.ix.Len(), "proj", PROJVersion(), "elapsed", time.Since(start).Round(time.Millisecond))
}

// Index waits for the index (reading it if nobody has yet).
func (s *Service) Index(ctx context.Context) (*Index, error) {
	s.Warm()
	select {
	case <-s.done:
		return s.ix, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Search searches the registry; exports need PROJ.
func (s *Service) Search(ctx context.Context, req SearchRequest) (*SearchResults, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	var exp Exporter
	if Available {
		exp = s.engine
	}
	return ix.Search(ctx, req, exp)
}

// Transform transforms coordinates with PROJ (ErrNoPROJ without it).
func (s *Service) Transform(ctx context.Context, req TransformRequest) (*TransformResult, error) {
	return s.engine.Transform(ctx, req)
}

// Close releases PROJ's contexts.
func (s *Service) Close() { s.engine.Close() }
