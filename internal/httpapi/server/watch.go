package server

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tesseramaps/tessera/internal/catalog"
)

// watchDelay lets a file being copied settle before it is scanned.
const watchDelay = 700 * time.Millisecond

// watch rescans the tiles directory when tileset files appear, change or
// go. Events are gathered for watchDelay so that a file being written is
// scanned once it is still.
func (s *Server) watch(ctx context.Context) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Warn("watching the tiles directory is off", "err", err)
		return
	}
	defer w.Close()
	if err := w.Add(s.Catalog.Dir()); err != nil {
		s.log.Warn("watching the tiles directory is off", "dir", s.Catalog.Dir(), "err", err)
		return
	}
	var timer *time.Timer
	fire := make(chan struct{}, 1)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			base := filepath.Base(ev.Name)
			if strings.HasPrefix(base, ".") || !isTilesetFile(base) {
				continue
			}
			if timer == nil {
				timer = time.AfterFunc(watchDelay, func() {
					select {
					case fire <- struct{}{}:
					default:
					}
				})
			} else {
				timer.Reset(watchDelay)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Warn("watch error", "err", err)
		case <-fire:
			if _, err := s.Catalog.Rescan(ctx); err != nil {
				s.log.Error("rescan after a change", "err", err)
			}
		}
	}
}

func isTilesetFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range catalog.Extensions {
		if ext == e {
			return true
		}
	}
	return false
}
