package mapimage

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // marker icons may be JPEG
	"image/png"
	"net/http"
	"sync"
	"time"

	_ "golang.org/x/image/webp" // and WebP

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/egress"
	"github.com/tesseramaps/tessera/internal/sprite"
)

// Limits of marker icons fetched by URL.
const (
	maxIconBytes   = 512 << 10
	maxIconSide    = 512
	iconTimeout    = 5 * time.Second
	maxCachedIcons = 256
)

// iconCache fetches marker icons by URL through the egress-checked client
// and keeps the decoded images (and failures, so that a bad URL is not
// fetched again by every request) up to maxCachedIcons.
type iconCache struct {
	client *http.Client
	mu     sync.Mutex
	m      map[string]iconEntry
}

type iconEntry struct {
	img image.Image
	err error
}

func newIconCache(client *http.Client) *iconCache {
	return &iconCache{client: client, m: map[string]iconEntry{}}
}

// get returns the icon at url, or a RequestError saying why it cannot be
// used (the remote's bytes are never echoed).
func (c *iconCache) get(ctx context.Context, url string) (image.Image, error) {
	c.mu.Lock()
	e, ok := c.m[url]
	c.mu.Unlock()
	if ok {
		return e.img, e.err
	}
	img, err := c.fetch(ctx, url)
	if ctx.Err() != nil {
		return nil, ctx.Err() // not the icon's fault: not cached
	}
	c.mu.Lock()
	if len(c.m) >= maxCachedIcons {
		clear(c.m)
	}
	c.m[url] = iconEntry{img, err}
	c.mu.Unlock()
	return img, err
}

func (c *iconCache) fetch(ctx context.Context, url string) (image.Image, error) {
	where := egress.Redact(url)
	if c.client == nil {
		return nil, badRequest("markers icon %s: icons by URL are not fetched by this server", where)
	}
	ctx, cancel := context.WithTimeout(ctx, iconTimeout)
	defer cancel()
	body, err := fetchLimited(ctx, c.client, url, maxIconBytes)
	if f, ok := egress.Forbidden(err); ok {
		return nil, badRequest("markers icon %s: %s", where, f.Error())
	}
	if err != nil {
		return nil, badRequest("markers icon %s could not be read (at most %d KiB, within %s)", where, maxIconBytes>>10, iconTimeout)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return nil, badRequest("markers icon %s is not a PNG, JPEG or WebP image", where)
	}
	if cfg.Width > maxIconSide || cfg.Height > maxIconSide || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, badRequest("markers icon %s is %dx%d pixels; at most %dx%d", where, cfg.Width, cfg.Height, maxIconSide, maxIconSide)
	}
	img, _, err := image.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, badRequest("markers icon %s is not a readable image", where)
	}
	return img, nil
}

// spriteIcon cuts the named icon out of the map's sprite sheet at ratio
// (1 or 2); it returns the icon and its pixel ratio.
func (s *Service) spriteIcon(ctx context.Context, m *catalog.Map, name string, ratio int) (image.Image, float64, error) {
	if s.sprites == nil {
		return nil, 0, badRequest("markers icon %q: this server builds no sprites", name)
	}
	sheet, err := s.sprites.Get(ctx, m.IconsPath(), sprite.Options{PixelRatio: ratio})
	if err != nil {
		return nil, 0, badRequest("markers icon %q: map %s has no icons", name, m.ID)
	}
	e, ok := sheet.Entries[name]
	if !ok {
		return nil, 0, badRequest("markers icon %q is neither an http(s) URL nor an icon of map %s", name, m.ID)
	}
	img, err := s.sheetImage(m.ID, ratio, sheet)
	if err != nil {
		return nil, 0, fmt.Errorf("sprite of map %s: %w", m.ID, err)
	}
	out := image.NewNRGBA(image.Rect(0, 0, e.Width, e.Height))
	draw.Draw(out, out.Rect, img, image.Pt(e.X, e.Y), draw.Src)
	return out, float64(max(1, e.PixelRatio)), nil
}

// sheetKey names a map's sprite sheet at a pixel ratio.
type sheetKey struct {
	mapID string
	ratio int
}

// decodedSheet is a sprite sheet's image, decoded once for as long as the
// sheet is the current one.
type decodedSheet struct {
	sheet *sprite.Sheet
	img   image.Image
}

// sheetImage returns the decoded image of a map's current sprite sheet.
func (s *Service) sheetImage(mapID string, ratio int, sheet *sprite.Sheet) (image.Image, error) {
	k := sheetKey{mapID, ratio}
	s.sheetsMu.Lock()
	d, ok := s.sheets[k]
	s.sheetsMu.Unlock()
	if ok && d.sheet == sheet {
		return d.img, nil
	}
	img, err := png.Decode(bytes.NewReader(sheet.PNG))
	if err != nil {
		return nil, err
	}
	s.sheetsMu.Lock()
	s.sheets[k] = decodedSheet{sheet, img}
	s.sheetsMu.Unlock()
	return img, nil
}
