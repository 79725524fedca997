package server

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/sprite"

	"github.com/tesseramaps/tessera/internal/style"
)

// maxStyleProblems bounds the problems kept per invalid style.
const maxStyleProblems = 50

// checkStyle parses a map's style and validates it against the style
// specification; any validation error keeps the map from being served.
// Fonts and icons the style names that the server lacks are warnings: the
// map is served with what exists.
func (srv *Server) checkStyle(dir string, raw []byte) catalog.StyleReport {
	s, err := style.Parse(raw)
	if err != nil {
		return catalog.StyleReport{Problems: []string{err.Error()}}
	}
	var problems []string
	for _, e := range style.Validate(s, style.DefaultSpec()) {
		if len(problems) == maxStyleProblems {
			problems = append(problems, "... more problems not shown")
			break
		}
		problems = append(problems, e.Error())
	}
	rep := catalog.StyleReport{Title: s.Name, Problems: problems, Warnings: srv.missingResources(dir, s), Tilesets: s.Tilesets()}
	if len(s.Center) == 2 {
		rep.View = &catalog.View{Lon: s.Center[0], Lat: s.Center[1]}
		if s.Zoom != nil {
			rep.View.Zoom = *s.Zoom
		}
	}
	if srv.Catalog != nil {
		for _, name := range rep.Tilesets {
			if e, ok := srv.Catalog.Get(name); !ok || !e.Served() {
				srv.log.Warn("map style names a tileset the server does not serve", "tileset", name, "dir", dir)
			}
		}
	}
	return rep
}

// missingResources lists the fonts and icons a style names that the server
// does not have.
func (srv *Server) missingResources(dir string, s *style.Style) []string {
	res := s.Resources()
	var out []string
	for _, f := range res.Fonts {
		if !srv.fonts.Has(f) {
			out = append(out, fmt.Sprintf("font %q is not installed in the fonts directory", f))
		}
	}
	if len(res.Icons) > 0 {
		icons := map[string]bool{}
		sheet, err := srv.sprites.Get(context.Background(), filepath.Join(dir, catalog.IconsDir), sprite.Options{})
		if err == nil {
			for name := range sheet.Entries {
				icons[name] = true
			}
		}
		for _, name := range res.Icons {
			if !icons[name] {
				out = append(out, fmt.Sprintf("icon %q is not among the map's icons", name))
			}
		}
	}
	return out
}

// rewriteStyle serves a stored style with every resource URL made an
// absolute URL of this server and the request's key carried into them.
func rewriteStyle(raw []byte, mapID, base, key string, hasTileset func(string) bool) ([]byte, []string, error) {
	s, err := style.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("parse style: %w", err)
	}
	out, problems := s.Rewrite(style.Resolver{
		BaseURL: base,
		MapID:   mapID,
		Key:     key,
		Tileset: func(name string) (string, bool) { return name, hasTileset(name) },
	})
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	return out, msgs, nil
}
