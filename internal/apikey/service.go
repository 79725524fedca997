package apikey

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/cursor"
	"github.com/tesseramaps/tessera/internal/store"
)

// Page sizes of the key list.
const (
	MinLimit     = 10
	MaxLimit     = 100
	DefaultLimit = 50
)

// Service keeps the keys in the state database and a snapshot of them in
// memory for checks. The snapshot is rebuilt after every change made
// through the service, and by Watch when another node changes the keys.
type Service struct {
	db   *store.DB
	log  *slog.Logger
	snap atomic.Pointer[Snapshot]

	mu      sync.Mutex // serialises reloads
	version string
}

// NewService returns the service over db with an empty snapshot; call
// Load to read the keys.
func NewService(db *store.DB, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: db, log: log}
	s.snap.Store(NewSnapshot(nil))
	return s
}

// Snapshot is the current set of keys.
func (s *Service) Snapshot() *Snapshot { return s.snap.Load() }

// Load reads every key into a new snapshot.
func (s *Service) Load(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadLocked(ctx)
}

func (s *Service) loadLocked(ctx context.Context) error {
	v, err := s.db.APIKeysVersion(ctx)
	if err != nil {
		return err
	}
	recs, err := s.db.APIKeys(ctx)
	if err != nil {
		return err
	}
	keys := make([]*Key, 0, len(recs))
	for _, r := range recs {
		keys = append(keys, fromRecord(r))
	}
	s.snap.Store(NewSnapshot(keys))
	s.version = v
	return nil
}

// LoadOne reloads the key with the id alone (another node created, changed
// or deleted it): one query whatever the number of keys, and a new
// snapshot with that key replaced, added or dropped.
func (s *Service) LoadOne(ctx context.Context, id string) error {
	rec, err := s.db.APIKey(ctx, id)
	gone := errors.Is(err, store.ErrNotFound)
	if err != nil && !gone {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.snap.Load().keys
	keys := make([]*Key, 0, len(old)+1)
	for _, k := range old {
		if k.ID != id {
			keys = append(keys, k)
		}
	}
	if !gone {
		keys = append(keys, fromRecord(rec))
	}
	s.snap.Store(NewSnapshot(keys))
	return nil
}

// Refresh reloads the keys when the database's have changed since the
// last load (another node's change).
func (s *Service) Refresh(ctx context.Context) error {
	v, err := s.db.APIKeysVersion(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v == s.version {
		return nil
	}
	return s.loadLocked(ctx)
}

// Watch refreshes the keys every interval until ctx ends.
func (s *Service) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("refresh API keys", "err", err)
			}
		}
	}
}

// changed reloads the changed key into the snapshot; the change itself
// stands even if the reload fails, and this node's snapshot catches up at
// its next full reload (Watch on SQLite, a reconnection of the change feed
// on PostgreSQL).
func (s *Service) changed(ctx context.Context, id string) {
	if err := s.LoadOne(ctx, id); err != nil {
		s.log.Warn("reload API keys after a change", "err", err)
	}
}

// Create makes a key with the settings (a name is generated unless given).
func (s *Service) Create(ctx context.Context, set Settings) (*Key, error) {
	tok, err := NewToken()
	if err != nil {
		return nil, fmt.Errorf("generate API key: %w", err)
	}
	k := &Key{ID: uuid.NewString(), Token: tok}
	if err := set.apply(k); err != nil {
		return nil, err
	}
	rec, err := s.db.CreateAPIKey(ctx, k.record())
	if err != nil {
		return nil, err
	}
	s.changed(ctx, rec.ID)
	return fromRecord(rec), nil
}

// Get returns the key with the id.
func (s *Service) Get(ctx context.Context, id string) (*Key, error) {
	rec, err := s.db.APIKey(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	return fromRecord(rec), nil
}

// Change applies settings to the key with the id.
func (s *Service) Change(ctx context.Context, id string, set Settings) (*Key, error) {
	k, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if set.Name.Set && (set.Name.Null || set.Name.Value == "") {
		k.Name = "" // cleared: generated again
	}
	if err := set.apply(k); err != nil {
		return nil, err
	}
	rec, err := s.db.UpdateAPIKey(ctx, k.record())
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	s.changed(ctx, id)
	return fromRecord(rec), nil
}

// Delete removes the key with the id; it stops working at once on this
// node (and on others at their next refresh).
func (s *Service) Delete(ctx context.Context, id string) error {
	err := s.db.DeleteAPIKey(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return err
	}
	s.changed(ctx, id)
	return nil
}

// Page is one page of the key list.
type Page struct {
	Items []*Key
	// Next is the cursor of the next page, "" after the last.
	Next  string
	Total int
}

// List returns the page of at most limit keys after the cursor (""
// starts at the beginning): cursor.ErrInvalid for a bad cursor.
func (s *Service) List(ctx context.Context, after string, limit int) (Page, error) {
	pos, err := cursor.Decode(after)
	if err != nil {
		return Page{}, err
	}
	recs, err := s.db.APIKeysAfter(ctx, pos.Seq, pos.ID, limit+1)
	if err != nil {
		return Page{}, err
	}
	total, err := s.db.CountAPIKeys(ctx)
	if err != nil {
		return Page{}, err
	}
	p := Page{Items: make([]*Key, 0, min(len(recs), limit)), Total: total}
	for i, r := range recs {
		if i == limit {
			last := recs[limit-1]
			p.Next = cursor.Encode(cursor.Position{Seq: last.Seq, ID: last.ID})
			break
		}
		p.Items = append(p.Items, fromRecord(r))
	}
	return p, nil
}
