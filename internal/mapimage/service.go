package mapimage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/renderqueue"
	"github.com/tesseramaps/tessera/internal/sprite"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/tilecache"
)

// Errors of the service; handlers map them to statuses.
var (
	// ErrBusy: the render queue is full (503 with Retry-After).
	ErrBusy = renderqueue.ErrBusy
	// ErrTimeout: a render passed its deadline (503).
	ErrTimeout = renderqueue.ErrTimeout
	// ErrPanic: a render panicked (500, logged with the panic's stack).
	ErrPanic = renderqueue.ErrPanic
	// ErrWorkBound: the picture needs more drawing than one render may do
	// (the map's style, or a static map's size and overlays): 400.
	ErrWorkBound = render.ErrWorkBound
)

// RequestError is a problem of the request (a 400): a tile outside the
// grid, a format the map does not serve, a marker icon that cannot be read.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

func badRequest(format string, args ...any) error {
	return &RequestError{Msg: fmt.Sprintf(format, args...)}
}

// IsRequestError reports whether err is the request's fault.
func IsRequestError(err error) bool {
	var e *RequestError
	return errors.As(err, &e)
}

// MaxZoom is the deepest zoom of a map's raster tiles (the documents
// advertise 0 to MaxZoom).
const MaxZoom = 22

// Image is an encoded picture ready to send.
type Image struct {
	Data      []byte
	MediaType string
	ETag      string
}

// Options configure a Service.
type Options struct {
	// Workers renders run at once (0: as many as cpuslots.Render has slots,
	// one fewer than the cores, at least one); Depth more may wait
	// (0: 8 per worker, at least 16); each render is cut after Timeout (0: 30 s).
	Workers, Depth int
	Timeout        time.Duration
	// CacheBytes bounds the cache of encoded raster tiles (0: off).
	CacheBytes int64
	// Remote reads http(s) resources of styles and marker icons; it must
	// enforce the egress rules. Nil: remote resources are refused.
	Remote *http.Client
	// Sprites builds the maps' sprites (for their icons and for marker
	// icons named by the sprite); nil: no sprite is read.
	Sprites *sprite.Cache
	// Maps and Fonts give the styles' sprites and glyph ranges (nil: none).
	Maps   *catalog.Maps
	Fonts  *glyphs.Library
	Logger *slog.Logger
}

// Service renders maps. It is safe for concurrent use.
type Service struct {
	cat     *catalog.Catalog
	render  *render.Renderer
	queue   *renderqueue.Queue
	cache   *tilecache.Cache
	res     resources
	sprites *sprite.Cache
	icons   *iconCache
	log     *slog.Logger
	// timeout is a render's budget: the render's deadline, less what
	// reading a static map's marker icons took.
	timeout time.Duration

	mu     sync.Mutex
	styles map[string]styleEntry // by map id

	sheetsMu sync.Mutex
	sheets   map[sheetKey]decodedSheet // decoded sprite sheets for marker icons

	// workBound counts the renders refused for too much drawing.
	workBound atomic.Uint64
}

// styleEntry is a map's style prepared for rendering, valid while the map
// and the catalog keep the generations it was made from.
type styleEntry struct {
	gen, catalog uint64
	key          uint64 // hash of the map id and both generations
	// res names the map's sprite and the fonts as last checked (at most
	// every resourceRecheck): an edited icon or a new font file makes new
	// tiles although the style is the same.
	res         uint64
	resChecked  time.Time
	st          *style.Style
	attribution string
	// fitZoom is the deepest zoom a static image of the map is fitted at.
	fitZoom float64
}

// New returns a service drawing the maps of cat's tilesets.
func New(cat *catalog.Catalog, opt Options) (*Service, error) {
	r, err := render.New(opt.Logger)
	if err != nil {
		return nil, err
	}
	if opt.Workers <= 0 {
		opt.Workers = cpuslots.Render.Size()
	}
	if opt.Depth <= 0 {
		// A web map client asks for a screenful of tiles at once (twelve
		// and more from OpenLayers' tiled WMS): with one worker on a
		// 2-core machine, four waiting would refuse most of them. The
		// queue's wait estimate still refuses at once what could not
		// start in time.
		opt.Depth = max(16, 8*opt.Workers)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 30 * time.Second
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	// Renders hold the process's processor slots, one fewer than the
	// cores: a core stays free for the requests that render nothing.
	queue := renderqueue.New(opt.Workers, opt.Depth, opt.Timeout)
	queue.SetSlots(cpuslots.Render)
	return &Service{
		cat: cat, render: r, log: log, sprites: opt.Sprites, timeout: opt.Timeout,
		queue:  queue,
		cache:  tilecache.NewSized(opt.CacheBytes, MaxCachedImage),
		res:    resources{cat: cat, maps: opt.Maps, sprites: opt.Sprites, fonts: opt.Fonts, remote: opt.Remote},
		icons:  newIconCache(opt.Remote),
		styles: map[string]styleEntry{},
		sheets: map[sheetKey]decodedSheet{},
	}, nil
}

// MaxCachedImage is the largest rendered tile kept in the cache: a
// 512-pixel tile at @2x is a 1024x1024 image, often 500 KB to 1 MB as PNG.
const MaxCachedImage = 1 << 20

// QueueStats reports the render queue's load.
func (s *Service) QueueStats() renderqueue.Stats { return s.queue.Stats() }

// WorkBound returns how many renders were refused for needing more
// drawing than one render may do (ErrWorkBound, or a static map's
// overlays past theirs).
func (s *Service) WorkBound() uint64 { return s.workBound.Load() }

// draw renders st in v (resampled onto out when not nil, see
// render.RenderOnto), counting a render refused for too much work.
func (s *Service) draw(ctx context.Context, st *style.Style, v render.View, out *render.Output) (*image.RGBA, error) {
	var img *image.RGBA
	var err error
	if out != nil {
		img, err = s.render.RenderOnto(ctx, st, v, s.res, *out)
	} else {
		img, err = s.render.Render(ctx, st, v, s.res)
	}
	if errors.Is(err, ErrWorkBound) {
		s.workBound.Add(1)
	}
	return img, err
}

// CacheStats reports the tile cache's use.
func (s *Service) CacheStats() tilecache.Stats { return s.cache.Stats() }

// style returns the map's style with its URLs made root-relative (this
// server's tilesets resolved by name), parsed once per generation.
func (s *Service) style(m *catalog.Map) (styleEntry, error) {
	catGen := s.catalogVersion()
	s.mu.Lock()
	e, ok := s.styles[m.ID]
	s.mu.Unlock()
	if ok && e.gen == m.Gen && e.catalog == catGen {
		if time.Since(e.resChecked) > resourceRecheck {
			e.res, e.resChecked = s.resourcesGen(m), time.Now()
			s.mu.Lock()
			s.styles[m.ID] = e
			s.mu.Unlock()
		}
		return e, nil
	}
	st, err := s.PrepareStyle(m.Style, m.ID)
	if err != nil {
		return styleEntry{}, err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d", m.ID, m.Gen, catGen)
	e = styleEntry{gen: m.Gen, catalog: catGen, st: st, attribution: s.attribution(st), key: h.Sum64(),
		res: s.resourcesGen(m), resChecked: time.Now(), fitZoom: s.fitZoom(st)}
	s.mu.Lock()
	s.styles[m.ID] = e
	s.mu.Unlock()
	return e, nil
}

// PrepareStyle parses a style and makes its resource URLs root-relative,
// naming this server's tilesets, ready for Render with Resources.
func (s *Service) PrepareStyle(raw []byte, mapID string) (*style.Style, error) {
	st, err := style.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", mapID, err)
	}
	out, _ := st.Rewrite(style.Resolver{MapID: mapID, Tileset: func(name string) (string, bool) {
		if s.cat == nil {
			return name, false
		}
		_, ok := s.cat.Get(name)
		return name, ok
	}})
	if st, err = style.Parse(out); err != nil {
		return nil, fmt.Errorf("map %s: rewritten style: %w", mapID, err)
	}
	return st, nil
}

// Resources reads what prepared styles name: this server's tilesets and
// http(s) URLs (under the egress rules).
func (s *Service) Resources() render.Resources { return s.res }

// Renderer is the service's renderer.
func (s *Service) Renderer() *render.Renderer { return s.render }

// resourceRecheck is how often a map's sprite and the fonts are looked at
// again for the cache keys of its tiles.
var resourceRecheck = 2 * time.Second

// resourcesGen names the map's sprite (the 1x sheet's ETag, which changes
// with any icon) and the fonts' generation.
func (s *Service) resourcesGen(m *catalog.Map) uint64 {
	h := fnv.New64a()
	if s.sprites != nil {
		if sheet, err := s.sprites.Get(context.Background(), m.IconsPath(), sprite.Options{PixelRatio: 1}); err == nil {
			h.Write([]byte(sheet.ETag))
		}
	}
	if s.res.fonts != nil {
		fmt.Fprintf(h, "\x00%d", s.res.fonts.Generation())
	}
	return h.Sum64()
}

func (s *Service) catalogVersion() uint64 {
	if s.cat == nil {
		return 0
	}
	return s.cat.Version()
}

// TileRequest names one raster tile of a map.
type TileRequest struct {
	Map     *catalog.Map
	Z, X, Y int
	Size    int // 256 or 512 CSS pixels
	Scale   int // 1 or 2
	Format  imageenc.Format
}

// Formats lists the formats a map's raster tiles come in: the one of its
// settings first, and basis (a GPU texture format, not a setting of maps),
// which every map serves.
func Formats(m *catalog.Map) []imageenc.Format {
	f, err := imageenc.ParseFormat(m.Format)
	if err != nil || f == imageenc.Basis {
		f = imageenc.PNG
	}
	return []imageenc.Format{f, imageenc.Basis}
}

// checkFormat refuses a format the map does not serve.
func checkFormat(m *catalog.Map, f imageenc.Format) error {
	for _, ok := range Formats(m) {
		if ok == f {
			return nil
		}
	}
	return badRequest("map %s serves %s images, not %s", m.ID, Formats(m)[0], f)
}

// Tile returns a raster tile, from the cache or rendered.
func (s *Service) Tile(ctx context.Context, t TileRequest) (Image, error) {
	if t.Z < 0 || t.Z > MaxZoom {
		return Image{}, badRequest("zoom %d is outside 0..%d", t.Z, MaxZoom)
	}
	n := 1 << t.Z
	if t.X < 0 || t.X >= n || t.Y < 0 || t.Y >= n {
		return Image{}, badRequest("tile %d/%d/%d is outside the grid (0..%d at zoom %d)", t.Z, t.X, t.Y, n-1, t.Z)
	}
	if t.Size != 256 && t.Size != 512 {
		return Image{}, badRequest("tile size %d: only 256 and 512", t.Size)
	}
	if t.Scale != 1 && t.Scale != 2 {
		return Image{}, badRequest("scale %d: only 1 and @2x", t.Scale)
	}
	if err := checkFormat(t.Map, t.Format); err != nil {
		return Image{}, err
	}
	se, err := s.style(t.Map)
	if err != nil {
		return Image{}, err
	}
	key := tilecache.Key{Gen: s.tileGen(t, se), Z: uint32(t.Z), X: uint32(t.X), Y: uint32(t.Y)}
	if c, ok := s.cache.Get(key); ok {
		return Image{Data: c.Data, ETag: c.ETag, MediaType: t.Format.MediaType()}, nil
	}
	if t.Size == 256 && t.Z > 0 {
		return s.quarterTile(ctx, t, se, key)
	}
	qkey := fmt.Sprintf("tile/%d/%d/%d/%d", key.Gen, t.Z, t.X, t.Y)
	data, err := s.queue.Do(ctx, qkey, func(ctx context.Context) ([]byte, error) {
		img, err := s.draw(ctx, se.st, TileView(t.Z, t.X, t.Y, t.Size, t.Scale), nil)
		if err != nil {
			return nil, err
		}
		return s.encode(ctx, img, t.Map, t.Format)
	})
	if err != nil {
		return Image{}, err
	}
	etag := tilecache.ETag(data)
	s.cache.Put(key, tilecache.Tile{Data: data, ETag: etag})
	return Image{Data: data, ETag: etag, MediaType: t.Format.MediaType()}, nil
}

// quarterTile makes a 256-pixel tile as a quarter of the 512-pixel tile
// over it (z-1, x/2, y/2), so that 256-pixel tiles are exactly as seamless
// as 512-pixel ones: labels are placed once for the four quarters, and
// across the edges of the 512-pixel grid as 512-pixel tiles place them.
// (Drawn on their own, with their own label grid, 256-pixel tiles cut
// labels that continue into a neighbour.) One render makes the four
// quarters; all four are cached, and requests for any of them at once
// share the render.
func (s *Service) quarterTile(ctx context.Context, t TileRequest, se styleEntry, key tilecache.Key) (Image, error) {
	pz, px, py := t.Z-1, t.X/2, t.Y/2
	qkey := fmt.Sprintf("tile256/%d/%d/%d/%d", key.Gen, pz, px, py)
	packed, err := s.queue.Do(ctx, qkey, func(ctx context.Context) ([]byte, error) {
		img, err := s.draw(ctx, se.st, TileView(pz, px, py, 512, t.Scale), nil)
		if err != nil {
			return nil, err
		}
		side := 256 * t.Scale
		var quarters [4][]byte
		for q := range quarters {
			x0, y0 := q%2*side, q/2*side
			if quarters[q], err = s.encode(ctx, img.SubImage(image.Rect(x0, y0, x0+side, y0+side)), t.Map, t.Format); err != nil {
				return nil, err
			}
		}
		return packQuarters(quarters), nil
	})
	if err != nil {
		return Image{}, err
	}
	quarters, err := unpackQuarters(packed)
	if err != nil {
		return Image{}, err
	}
	var out Image
	for q, data := range quarters {
		k := key
		k.X, k.Y = uint32(2*px+q%2), uint32(2*py+q/2)
		etag := tilecache.ETag(data)
		s.cache.Put(k, tilecache.Tile{Data: data, ETag: etag})
		if k == key {
			out = Image{Data: data, ETag: etag, MediaType: t.Format.MediaType()}
		}
	}
	return out, nil
}

// packQuarters joins four encoded quarters, each after its length (4
// bytes, big-endian), for the render queue's one result.
func packQuarters(q [4][]byte) []byte {
	n := 0
	for _, b := range q {
		n += 4 + len(b)
	}
	out := make([]byte, 0, n)
	for _, b := range q {
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out
}

// unpackQuarters splits what packQuarters joined.
func unpackQuarters(b []byte) ([4][]byte, error) {
	var q [4][]byte
	for i := range q {
		if len(b) < 4 || uint64(len(b)-4) < uint64(binary.BigEndian.Uint32(b)) {
			return q, errors.New("quarter tiles: truncated result")
		}
		n := binary.BigEndian.Uint32(b)
		q[i], b = b[4:4+n:4+n], b[4+n:]
	}
	return q, nil
}

// tileGen names everything a tile's pixels depend on besides its address:
// the map and its style generation and the catalog's version (hashed once
// per style entry), the size, scale, format and quality.
func (s *Service) tileGen(t TileRequest, se styleEntry) uint64 {
	h := se.key ^ se.res
	for _, v := range [...]uint64{uint64(t.Size), uint64(t.Scale), formatCode(t.Format), uint64(t.Map.Quality)} {
		h ^= v
		h *= 0x100000001b3 // FNV-1a's prime, a word at a time
	}
	return h
}

func formatCode(f imageenc.Format) uint64 {
	switch f {
	case imageenc.JPEG:
		return 2
	case imageenc.WebP:
		return 3
	case imageenc.Basis:
		return 4
	}
	return 1
}

// TileView is the view of tile z/x/y of size CSS pixels at scale: the
// tile's square, centred, at the zoom where the world is 2^z tiles wide,
// with labels that agree across tile edges.
func TileView(z, x, y, size, scale int) render.View {
	n := math.Exp2(float64(z))
	lon, lat := geo.WorldToLonLat((float64(x)+0.5)/n, (float64(y)+0.5)/n)
	return render.View{
		Center: [2]float64{lon, lat}, Zoom: float64(z) + math.Log2(float64(size)/512),
		Width: size, Height: size, PixelRatio: float64(scale),
		// Labels near an edge are decided alike by both tiles: the data of
		// half a tile around is read, and labels crossing the tile grid
		// are placed first, so a label is drawn whole on both sides of a
		// seam or on neither.
		LabelMargin: float64(size) / 2, LabelGrid: float64(size),
	}
}

func (s *Service) encode(ctx context.Context, img image.Image, m *catalog.Map, f imageenc.Format) ([]byte, error) {
	return encodeWith(ctx, img, imageenc.Options{Format: f, Quality: m.Quality})
}

// encodeWith encodes img, unless ctx has ended (a render past its deadline
// spends nothing more on its picture).
func encodeWith(ctx context.Context, img image.Image, opt imageenc.Options) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("encode: %w", context.Cause(ctx))
	}
	var buf bytes.Buffer
	if err := imageenc.Encode(&buf, img, opt); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
