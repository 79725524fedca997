package mapimage

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/sprite"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// maxResourceBytes bounds one resource read for a render: a tile once
// decompressed, a TileJSON, a remote GeoJSON file.
const maxResourceBytes = 16 << 20

// ErrNotServed is returned (wrapped) for a tileset that does not exist or is
// not published: its tiles draw as empty.
var ErrNotServed = errors.New("tileset not served")

// resources gives the renderer the bytes behind a map style's URLs once
// the style has been rewritten with root-relative URLs: this server's
// tilesets ("/tiles/{id}/tiles.json", "/tiles/{id}/{z}/{x}/{y}") are read
// from the catalog, http(s) URLs through the remote client (which enforces
// the egress rules), anything else is refused.
type resources struct {
	cat     *catalog.Catalog
	maps    *catalog.Maps
	sprites *sprite.Cache
	fonts   *glyphs.Library
	remote  *http.Client
}

func (r resources) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(rawURL, "/tiles/"); ok {
		rest, _, _ = strings.Cut(rest, "?")
		return r.tileset(ctx, rest)
	}
	if rest, ok := strings.CutPrefix(rawURL, "/maps/"); ok {
		rest, _, _ = strings.Cut(rest, "?")
		return r.sprite(ctx, rest)
	}
	if rest, ok := strings.CutPrefix(rawURL, "/fonts/"); ok {
		rest, _, _ = strings.Cut(rest, "?")
		return r.glyphs(ctx, rest)
	}
	if strings.HasPrefix(rawURL, "http://") || strings.HasPrefix(rawURL, "https://") {
		return r.fetchRemote(ctx, rawURL)
	}
	return nil, fmt.Errorf("resource %q: only this server's tilesets and http(s) URLs are read", rawURL)
}

// entry finds a tileset by name, else by id.
func (r resources) entry(name string) (*catalog.Entry, bool) {
	if r.cat == nil {
		return nil, false
	}
	e, ok := r.cat.Get(name)
	if !ok {
		e, ok = r.cat.ByID(name)
	}
	return e, ok
}

// tileset answers "{id}/tiles.json" and "{id}/{z}/{x}/{y}".
func (r resources) tileset(ctx context.Context, rest string) ([]byte, error) {
	parts := strings.Split(rest, "/")
	if len(parts) == 0 || r.cat == nil {
		return nil, fmt.Errorf("tileset %q: %w", rest, ErrNotServed)
	}
	e, ok := r.entry(parts[0])
	if !ok || !e.Served() {
		return nil, fmt.Errorf("tileset %q: %w", parts[0], ErrNotServed)
	}
	switch {
	case len(parts) == 2 && parts[1] == "tiles.json":
		return tileJSON(e)
	case len(parts) == 4:
		var zxy [3]int
		for i, p := range parts[1:] {
			p, _, _ = strings.Cut(p, ".")
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("tile address %q: %w", rest, err)
			}
			zxy[i] = n
		}
		data, err := e.Reader.Tile(ctx, zxy[0], zxy[1], zxy[2])
		if err != nil {
			return nil, fmt.Errorf("tileset %s tile %d/%d/%d: %w", e.ID, zxy[0], zxy[1], zxy[2], err)
		}
		if tilesource.IsGzip(data) {
			return gunzip(data)
		}
		return data, nil
	}
	return nil, fmt.Errorf("tileset resource %q is not a TileJSON or a tile", rest)
}

// sprite answers "{mapId}/sprite{@2x}.json" and ".png" from the map's
// icons, as the server's sprite endpoints do.
func (r resources) sprite(ctx context.Context, rest string) ([]byte, error) {
	id, file, ok := strings.Cut(rest, "/")
	name, isSprite := strings.CutPrefix(file, "sprite")
	if !ok || !isSprite || r.maps == nil || r.sprites == nil {
		return nil, fmt.Errorf("map resource %q: only sprites are read", rest)
	}
	m, found := r.maps.Get(id)
	if !found || !m.Served() {
		return nil, fmt.Errorf("map %q: not served", id)
	}
	ratio := 1
	if n, ok := strings.CutPrefix(name, "@2x"); ok {
		ratio, name = 2, n
	}
	sheet, err := r.sprites.Get(ctx, m.IconsPath(), sprite.Options{PixelRatio: ratio})
	if err != nil {
		return nil, fmt.Errorf("sprite of map %s: %w", id, err)
	}
	switch name {
	case ".json":
		return sheet.Index, nil
	case ".png":
		return sheet.PNG, nil
	}
	return nil, fmt.Errorf("map resource %q: sprites are sprite.json and sprite.png", rest)
}

// glyphs answers "{fontstack}/{start}-{end}.pbf" from the server's fonts.
func (r resources) glyphs(ctx context.Context, rest string) ([]byte, error) {
	stackPart, rangePart, ok := strings.Cut(rest, "/")
	rangePart, isPBF := strings.CutSuffix(rangePart, ".pbf")
	if !ok || !isPBF || r.fonts == nil {
		return nil, fmt.Errorf("font resource %q: want {fontstack}/{range}.pbf", rest)
	}
	if unescaped, err := url.PathUnescape(stackPart); err == nil {
		stackPart = unescaped
	}
	stack, err := glyphs.ParseFontstack(stackPart)
	if err != nil {
		return nil, err
	}
	start, err := glyphs.ParseRange(rangePart)
	if err != nil {
		return nil, err
	}
	return r.fonts.Range(ctx, stack, start)
}

// tileJSON describes a tileset to the renderer: where its tiles are and
// which zooms they cover.
func tileJSON(e *catalog.Entry) ([]byte, error) {
	doc := map[string]any{
		"tilejson": "3.0.0",
		// The entry's generation names this version of the tileset: the
		// renderer keeps decoded tiles by URL, and a replaced tileset must
		// not be drawn from them.
		"tiles":   []string{"/tiles/" + e.Name + "/{z}/{x}/{y}?v=" + strconv.FormatUint(e.Gen, 10)},
		"minzoom": e.Info.MinZoom,
		"maxzoom": e.Info.MaxZoom,
		"bounds":  e.Info.Bounds,
	}
	if e.Info.TileSize > 0 {
		doc["tileSize"] = e.Info.TileSize
	}
	if e.Info.Attribution != "" {
		doc["attribution"] = e.Info.Attribution
	}
	return json.Marshal(doc)
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gunzip tile: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxResourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("gunzip tile: %w", err)
	}
	if len(out) > maxResourceBytes {
		return nil, fmt.Errorf("gunzip tile: more than %d bytes", maxResourceBytes)
	}
	return out, nil
}

// fetchRemote reads an http(s) URL through the egress-checked client.
func (r resources) fetchRemote(ctx context.Context, url string) ([]byte, error) {
	return fetchLimited(ctx, r.remote, url, maxResourceBytes)
}

// fetchLimited GETs url with client, refusing bodies over limit bytes.
func fetchLimited(ctx context.Context, client *http.Client, url string, limit int64) ([]byte, error) {
	if client == nil {
		return nil, fmt.Errorf("remote resources are not read by this server")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("remote resource: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("remote resource: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("remote resource answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("remote resource: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("remote resource is larger than %d bytes", limit)
	}
	return body, nil
}
