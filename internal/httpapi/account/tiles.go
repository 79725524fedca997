package account

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/cursor"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// Limits of a tileset's account fields.
const (
	MaxTitleBytes       = 200
	MaxDescriptionBytes = 10000
	MaxAttributionBytes = 2000
)

// Tileset is a tileset as the account API shows it.
type Tileset struct {
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Attribution *string `json:"attribution"`
}

func view(e *catalog.Entry) Tileset {
	return Tileset{ID: e.ID, Title: e.Title, Description: e.Description, Attribution: e.Attribution}
}

// tileList is the answer of GET /tiles.
type tileList struct {
	Cursor *string   `json:"cursor"`
	Items  []Tileset `json:"items"`
}

func (a *API) listTiles(w http.ResponseWriter, r *http.Request) {
	pos, _, limit, err := Page(r)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	entries, more := a.d.Catalog.After(pos, limit)
	out := tileList{Items: make([]Tileset, 0, len(entries))}
	for _, e := range entries {
		out.Items = append(out.Items, view(e))
	}
	if more {
		last := entries[len(entries)-1]
		next := cursor.Encode(cursor.Position{Seq: last.Seq, ID: last.ID})
		out.Cursor = &next
	}
	respond.JSON(w, http.StatusOK, out)
}

// entry finds the tileset of the path's id: 400 for an id that is not a
// UUID, 410 for one the account API removed, 404 for an unknown one.
func (a *API) entry(w http.ResponseWriter, r *http.Request) (*catalog.Entry, bool) {
	id, ok := pathUUID(w, r, "tileset")
	if !ok {
		return nil, false
	}
	if e, ok := a.d.Catalog.ByID(id); ok {
		return e, true
	}
	removed, err := a.d.DB.TilesetRemoved(r.Context(), id)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	if removed {
		respond.Fail(w, http.StatusGone, fmt.Sprintf("tileset %s was removed", id))
		return nil, false
	}
	respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tileset %s does not exist", id))
	return nil, false
}

func (a *API) getTiles(w http.ResponseWriter, r *http.Request) {
	if e, ok := a.entry(w, r); ok {
		respond.JSON(w, http.StatusOK, view(e))
	}
}

// deleteTiles marks the tileset removed (its id answers 410 from then on),
// then removes it as the admin API does: unpublished, its file deleted (a
// remote archive's file stays where it is), its record dropped. When the
// removal fails the mark is taken back.
func (a *API) deleteTiles(w http.ResponseWriter, r *http.Request) {
	e, ok := a.entry(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if err := a.d.DB.MarkTilesetRemoved(ctx, e.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	if _, err := a.d.Catalog.Delete(ctx, e.ID); err != nil {
		if uerr := a.d.DB.UnmarkTilesetRemoved(ctx, e.ID); uerr != nil {
			a.d.Log.ErrorContext(ctx, "take back a removal mark", "id", e.ID, "err", uerr)
		}
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// metadataChange is the body of POST /tiles/{id}/change_metadata: all
// three fields required strings.
type metadataChange struct {
	Attribution *string `json:"attribution"`
	Description *string `json:"description"`
	Title       *string `json:"title"`
}

func (m metadataChange) check() error {
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{{"attribution", m.Attribution, MaxAttributionBytes}, {"description", m.Description, MaxDescriptionBytes}, {"title", m.Title, MaxTitleBytes}} {
		if f.v == nil {
			return fmt.Errorf("%s is required (a string)", f.name)
		}
		if !utf8.ValidString(*f.v) || len(*f.v) > f.max {
			return fmt.Errorf("%s: at most %d bytes of UTF-8", f.name, f.max)
		}
	}
	if strings.ContainsAny(*m.Title, "\x00\r\n") {
		return fmt.Errorf("title: one line of text")
	}
	return nil
}

func (a *API) changeTiles(w http.ResponseWriter, r *http.Request) {
	e, ok := a.entry(w, r)
	if !ok {
		return
	}
	var body metadataChange
	if !respond.Decode(w, r, &body, false) {
		return
	}
	if err := body.check(); err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	e, err := a.d.Catalog.Update(r.Context(), e.ID, catalog.Change{Title: body.Title, Description: body.Description, Attribution: body.Attribution})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, view(e))
}
