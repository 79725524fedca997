package public

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/sprite"
)

// RegisterSprites adds the named icon sets of spec 002:
// /sprites/{spriteId}/sprite{scale}.{format}.
func (a *API) RegisterSprites(mux route.Router) {
	mux.HandleFunc("GET /sprites/{spriteId}/{file}", a.spriteSet)
}

// checkID tells whether an id of a data directory item (a sprite set, an
// image, a dataset) is one (pyramid.ValidID).
func checkID(kind, id string) error {
	if !pyramid.ValidID(id) {
		return fmt.Errorf("%s id %q: ids are 1 to 128 letters, digits, '-', '_' or '.', not starting with '.'", kind, id)
	}
	return nil
}

// parseSpriteFile reads sprite{scale}.{format}: the pixel ratio (1, or 2
// for @2x) and whether the index (json) or the sheet (png) is asked for.
func parseSpriteFile(file string) (ratio int, index bool, err error) {
	rest, ok := strings.CutPrefix(file, "sprite")
	if !ok {
		return 0, false, fmt.Errorf("%q: sprites are sprite{scale}.{format}: sprite.png, sprite.json, sprite@2x.png or sprite@2x.json", file)
	}
	ratio = 1
	if s, ok := strings.CutPrefix(rest, "@"); ok {
		scale, format, _ := strings.Cut(s, ".")
		if scale != "2x" {
			return 0, false, fmt.Errorf("scale %q: the only scale is @2x", "@"+scale)
		}
		ratio, rest = 2, "."+format
	}
	switch rest {
	case ".png":
		return ratio, false, nil
	case ".json":
		return ratio, true, nil
	}
	return 0, false, fmt.Errorf("format %q: sprite formats are png and json", strings.TrimPrefix(rest, "."))
}

// spriteSet serves /sprites/{spriteId}/sprite{scale}.{format}: the icon
// set DATA/sprites/{spriteId}/, or else the icons of the published map
// {spriteId} (a set of the same name hides the map's icons here; the map's
// own sprite endpoint still serves them).
func (a *API) spriteSet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("spriteId")
	if err := checkID("sprite", id); err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	ratio, index, err := parseSpriteFile(r.PathValue("file"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if a.d.Sprites == nil {
		respond.Fail(w, http.StatusNotFound, "this server builds no sprites")
		return
	}
	dir := ""
	if a.d.SpritesDir != "" {
		if st, err := os.Stat(filepath.Join(a.d.SpritesDir, id)); err == nil && st.IsDir() {
			dir = filepath.Join(a.d.SpritesDir, id)
		}
	}
	if dir == "" && a.d.Maps != nil {
		if m, ok := a.d.Maps.Get(id); ok && m.Served() {
			dir = m.IconsPath()
		}
	}
	if dir == "" {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("sprite %q does not exist", id))
		return
	}
	a.serveSprite(w, r, dir, id, ratio, index)
}

// serveSprite serves the sheet (or its index) of the icons in dir.
func (a *API) serveSprite(w http.ResponseWriter, r *http.Request, dir, id string, ratio int, index bool) {
	sheet, err := a.d.Sprites.Get(r.Context(), dir, sprite.Options{PixelRatio: ratio})
	if errors.Is(err, fs.ErrNotExist) {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("sprite %q has no icons", id))
		return
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		a.jsonDocument(w, r, "", nil, fmt.Errorf("sprite %s: %w", id, err))
		return
	}
	if index {
		a.document(w, r, "application/json", sheet.Index)
		return
	}
	a.document(w, r, "image/png", sheet.PNG)
}
