package public

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/tilecache"
	"github.com/tesseramaps/tessera/internal/tilecoord"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// RegisterPictures adds the images of spec 002 (pixel pyramids of large
// pictures): /images/{imageId}/image.json and /images/{imageId}/{z}/{x}/{y}.
func (a *API) RegisterPictures(mux route.Router) {
	mux.HandleFunc("GET /images/{imageId}/{file}", a.imageJSON)
	mux.HandleFunc("GET /images/{imageId}/{z}/{x}/{y}", a.imageTile)
}

// ImageJSON describes an image (spec 002).
type ImageJSON struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Attribution string `json:"attribution"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	MinZoom     int    `json:"minzoom"`
	MaxZoom     int    `json:"maxzoom"`
	TileSize    int    `json:"tileSize"`
}

// picture finds the image named in the path, answering 400 or 404.
func (a *API) picture(w http.ResponseWriter, r *http.Request) (*pyramid.Image, bool) {
	id := r.PathValue("imageId")
	if err := checkID("image", id); err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	if a.d.Pictures == nil {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("image %q does not exist", id))
		return nil, false
	}
	img, err := a.d.Pictures.Get(r.Context(), id)
	if errors.Is(err, pyramid.ErrNotFound) {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("image %q does not exist", id))
		return nil, false
	}
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "open image", "image", id, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the image could not be read")
		return nil, false
	}
	return img, true
}

func (a *API) imageJSON(w http.ResponseWriter, r *http.Request) {
	if file := r.PathValue("file"); file != "image.json" {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("%q: an image's document is image.json; its tiles are {z}/{x}/{y}", file))
		return
	}
	img, ok := a.picture(w, r)
	if !ok {
		return
	}
	a.jsonDocument(w, r, "application/json", ImageJSON{
		ID: img.ID, Description: img.Description, Attribution: img.Attribution,
		Width: img.Width, Height: img.Height, MinZoom: img.MinZoom, MaxZoom: img.MaxZoom, TileSize: img.TileSize,
	}, nil)
}

// imageTile serves a tile of an image: 400 past the picture's edge or for
// a bad address, 204 for a tile not stored (transparent).
func (a *API) imageTile(w http.ResponseWriter, r *http.Request) {
	img, ok := a.picture(w, r)
	if !ok {
		return
	}
	c, ext, err := tilecoord.Parse(r.PathValue("z"), r.PathValue("x"), r.PathValue("y"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	format := tilesource.Format(img.Format)
	if ext != "" && !format.AcceptsExtension(ext) {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("image %q has %s tiles: the extension .%s does not match", img.ID, img.Format, ext))
		return
	}
	if !img.Contains(c.Z, c.X, c.Y) {
		lw, lh := pyramid.LevelSize(img.Width, img.Height, min(c.Z, img.MaxZoom), img.MaxZoom)
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("tile %d/%d/%d is out of bounds: image %q has zooms %d to %d; at zoom %d it is %dx%d pixels, tiles x 0..%d, y 0..%d",
			c.Z, c.X, c.Y, img.ID, img.MinZoom, img.MaxZoom, min(c.Z, img.MaxZoom), lw, lh, (lw-1)/pyramid.TileSize, (lh-1)/pyramid.TileSize))
		return
	}
	data, err := img.Tile(r.Context(), c.Z, c.X, c.Y)
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		a.d.Log.ErrorContext(r.Context(), "read image tile", "image", img.ID, "tile", c.String(), "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the tile could not be read")
		return
	}
	h := w.Header()
	h["Cache-Control"] = a.ccTiles
	if len(data) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	etag := tilecache.ETag(data)
	h.Set("ETag", etag)
	if match(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	respond.Bytes(w, http.StatusOK, format.MediaType(), data)
}
