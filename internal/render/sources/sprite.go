package sources

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"image"
	"log/slog"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/spritesheet"
)

// Icon is one icon of the style's sprite: premultiplied RGBA pixels.
type Icon struct {
	W, H  int
	Ratio float64 // image pixels per CSS pixel
	SDF   bool
	Pix   []uint8 // w*h*4, premultiplied
	// Pattern is the icon as a pattern's image: pix as a canvas of its own.
	Pattern PatternImage
}

// Sprites holds the style's sprite sheets, loaded on first use; an icon
// is cut from its sheet when first asked for.
type Sprites struct {
	s      *Set
	once   sync.Once // loads the sheets on first use, from any goroutine
	sheets []namedSheet
	// read is the sheet read for each of the style's sprites (nil where
	// none was), for the patterns (spriteSource).
	read []*sheet
}

// NewSprites returns the sprite sheets of set's style, not yet read.
func NewSprites(set *Set) *Sprites { return &Sprites{s: set} }

// namedSheet is one of the style's sheets and the prefix of its icons'
// names ("id:", or none for the sheet "default").
type namedSheet struct {
	prefix string
	sh     *sheet
}

// Icon returns the named icon, or nil. When sheets name an icon alike, the
// style's last sheet with it wins.
func (sp *Sprites) Icon(ctx context.Context, name string) *Icon {
	sp.once.Do(func() { sp.load(ctx) })
	return findIcon(sp.sheets, name)
}

// findIcon returns the named icon of the sheets, or nil: the last sheet
// whose prefix the name has and which has the rest of it.
func findIcon(sheets []namedSheet, name string) *Icon {
	for i := len(sheets) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(name, sheets[i].prefix); ok {
			if ic := sheets[i].sh.icon(rest); ic != nil {
				return ic
			}
		}
	}
	return nil
}

// load reads the style's sprite sheets (one URL, or a list of {id, url}
// whose icons other than "default" are named "id:name"): the @2x ones
// when the view's pixel ratio is above 1, as GL loads them, with no
// falling back to the plain ones.
func (sp *Sprites) load(ctx context.Context) {
	suffix := ""
	if sp.s.View.PixelRatio > 1 {
		suffix = "@2x"
	}
	sp.read = make([]*sheet, len(sp.s.Style.Sprites))
	for i, sprite := range sp.s.Style.Sprites {
		if sprite.URL == "" {
			continue
		}
		sh, err := readSheet(ctx, sp.s.Res, sp.s.Log, sprite.URL, suffix)
		if err != nil {
			sp.s.Log.Warn("render: sprite skipped", "url", spriteURL(sprite.URL, suffix), "err", err)
		}
		if sh != nil {
			sp.sheets = append(sp.sheets, namedSheet{spritePrefix(sprite.ID), sh})
		}
		sp.read[i] = sh
	}
}

// spritePrefix is the prefix of the names of a sheet's icons: "id:", or
// none for the sheet "default".
func spritePrefix(id string) string {
	if id == "default" {
		return ""
	}
	return id + ":"
}

// spriteURL returns the URL of a sheet's file: the sheet URL with the
// suffix ("@2x" and ".json" or ".png") before any query.
func spriteURL(base, suffix string) string {
	if i := strings.IndexByte(base, '?'); i >= 0 {
		return base[:i] + suffix + base[i:]
	}
	return base + suffix
}

// readSheet reads the sheet at base with scale ("" or "@2x"): its index
// and image, decoded, or found decoded already. Icons and patterns share
// the sheets. A sheet whose image cannot be decoded comes with no icons
// and the error.
func readSheet(ctx context.Context, res Resources, log *slog.Logger, base, scale string) (*sheet, error) {
	idx, err := res.Fetch(ctx, spriteURL(base, scale+".json"))
	if err != nil {
		return nil, fmt.Errorf("sprite index: %w", err)
	}
	data, err := res.Fetch(ctx, spriteURL(base, scale+".png"))
	if err != nil {
		return nil, fmt.Errorf("sprite image: %w", err)
	}
	key := sheetKey(idx, data)
	if sh, ok := sheets.get(key); ok {
		return sh, nil
	}
	sh, err := decodeSheet(idx, data, log)
	if sh == nil {
		return nil, err
	}
	sheets.add(key, sh)
	return sh, err
}

// sheet is a decoded sprite sheet: its pixels, and its icons, each cut
// out on first use. It is shared by renders and never modified but for
// the icons' one cutting.
type sheet struct {
	pix   *spritesheet.Sheet // nil when the image could not be decoded
	icons map[string]*sheetIcon
}

// sheetIcon is an icon's entry in its sheet's index, and the icon once cut.
type sheetIcon struct {
	r     image.Rectangle // within the sheet
	ratio float64
	sdf   bool
	once  sync.Once
	ic    *Icon
}

// decodeSheet decodes a sheet's index and image. Entries outside the image
// are logged and left out. An image that cannot be decoded makes a sheet
// with no icons, returned with the error; an index that cannot, none.
func decodeSheet(idx, data []byte, log *slog.Logger) (*sheet, error) {
	entries, err := spritesheet.ParseIndex(idx)
	if err != nil {
		return nil, fmt.Errorf("sprite index: %w", err)
	}
	pix, err := spritesheet.Decode(data)
	if err != nil {
		return &sheet{}, fmt.Errorf("sprite image: %w", err)
	}
	sh := &sheet{pix: pix, icons: make(map[string]*sheetIcon, len(entries))}
	all := make([]sheetIcon, len(entries))
	bounds := pix.Bounds()
	for name, e := range entries {
		r := image.Rect(e.X, e.Y, e.X+e.Width, e.Y+e.Height)
		if e.Width <= 0 || e.Height <= 0 || !r.In(bounds) {
			log.Warn("render: sprite icon outside its sheet skipped", "icon", name)
			continue
		}
		ratio := e.PixelRatio
		if ratio <= 0 {
			ratio = 1
		}
		si := &all[len(sh.icons)]
		si.r, si.ratio, si.sdf = r, ratio, e.SDF
		sh.icons[name] = si
	}
	return sh, nil
}

// icon returns the named icon, cut out on first use, or nil.
func (sh *sheet) icon(name string) *Icon {
	si := sh.icons[name]
	if si == nil {
		return nil
	}
	si.once.Do(func() {
		w, h := si.r.Dx(), si.r.Dy()
		ic := &Icon{W: w, H: h, Ratio: si.ratio, SDF: si.sdf, Pix: make([]uint8, w*h*4)}
		sh.pix.Cut(ic.Pix, si.r)
		bounds := image.Rect(0, 0, w, h)
		ic.Pattern = PatternImage{Sheet: &raster.Canvas{RGBA: &image.RGBA{Pix: ic.Pix, Stride: 4 * w, Rect: bounds}},
			Rect: bounds, Ratio: si.ratio}
		si.ic = ic
	})
	return si.ic
}

// bytes bounds the memory the sheet holds: its pixels, and its icons as
// if all were cut.
func (sh *sheet) bytes() int64 {
	n := int64(0)
	if sh.pix != nil {
		n += sh.pix.Size()
	}
	for _, si := range sh.icons {
		n += int64(si.r.Dx())*int64(si.r.Dy())*4 + 160
	}
	return n
}

// sheets caches decoded sprite sheets across renders by their content:
// a style's sprite is the same from one render to the next, and decoding
// its PNG costs more than drawing its icons.
var sheets = &sheetCache{m: map[sheetID]*sheet{}, max: maxSheetBytes}

// maxSheetBytes bounds the memory of the sheets kept.
const maxSheetBytes = 32 << 20

type sheetCache struct {
	mu    sync.Mutex
	m     map[sheetID]*sheet
	order []sheetID // oldest first
	bytes int64     // of the sheets kept
	max   int64
}

// sheetID names a sheet by its index and image: two 64-bit hashes of
// them, with seeds of this process's own.
type sheetID [2]uint64

var sheetSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func sheetKey(index, image []byte) sheetID {
	var k sheetID
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(index)))
	for i, seed := range sheetSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		h.Write(n[:])
		h.Write(index)
		h.Write(image)
		k[i] = h.Sum64()
	}
	return k
}

func (c *sheetCache) get(k sheetID) (*sheet, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sh, ok := c.m[k]
	return sh, ok
}

func (c *sheetCache) add(k sheetID, sh *sheet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	size := sh.bytes()
	if size > c.max/2 {
		return // one huge sheet would push everything else out
	}
	for c.bytes+size > c.max && len(c.order) > 0 {
		c.bytes -= c.m[c.order[0]].bytes()
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[k] = sh
	c.order = append(c.order, k)
	c.bytes += size
}
