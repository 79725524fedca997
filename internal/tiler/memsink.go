package tiler

import (
	"context"
	"fmt"
	"sync"
)

// TileID is a tile address in the XYZ scheme.
type TileID struct{ Z, X, Y int }

// MemorySink is a Sink that keeps tiles in memory (for tests and small
// previews). It is safe for concurrent use.
type MemorySink struct {
	mu    sync.Mutex
	tiles map[TileID][]byte
}

// NewMemorySink returns an empty MemorySink.
func NewMemorySink() *MemorySink { return &MemorySink{tiles: map[TileID][]byte{}} }

// PutTile stores a copy of data; writing the same tile twice is an error.
func (m *MemorySink) PutTile(ctx context.Context, z, x, y int, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id := TileID{z, x, y}
	if _, ok := m.tiles[id]; ok {
		return fmt.Errorf("tile %d/%d/%d written twice", z, x, y)
	}
	m.tiles[id] = append([]byte(nil), data...)
	return nil
}

// Get returns a stored tile.
func (m *MemorySink) Get(z, x, y int) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.tiles[TileID{z, x, y}]
	return d, ok
}

// Len returns the number of tiles stored.
func (m *MemorySink) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tiles)
}

// Tiles returns the addresses of all stored tiles (in no particular order).
func (m *MemorySink) Tiles() []TileID {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]TileID, 0, len(m.tiles))
	for id := range m.tiles {
		out = append(out, id)
	}
	return out
}
