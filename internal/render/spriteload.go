package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"sync"

	"github.com/tesseramaps/tessera/internal/style"
)

// spriteIcon is one icon of the style's sprite: premultiplied RGBA pixels.
type spriteIcon struct {
	w, h  int
	ratio float64 // image pixels per CSS pixel
	sdf   bool
	pix   []uint8 // w*h*4, premultiplied
}

// spriteSet holds the style's sprite icons, loaded on first use.
type spriteSet struct {
	s     *sourceSet
	once  sync.Once // loads the icons on first use, from any goroutine
	icons map[string]*spriteIcon
}

// icon returns the named icon, or nil.
func (sp *spriteSet) icon(ctx context.Context, name string) *spriteIcon {
	sp.once.Do(func() {
		sp.icons = map[string]*spriteIcon{}
		sp.load(ctx)
	})
	return sp.icons[name]
}

// load reads the style's sprite (one URL, or a list of {id, url} whose
// icons other than "default" are named "id:name").
func (sp *spriteSet) load(ctx context.Context) {
	v, ok := sp.s.st.Doc().Get("sprite")
	if !ok {
		return
	}
	switch v := v.(type) {
	case string:
		sp.loadOne(ctx, v, "")
	case []any:
		for _, e := range v {
			m, _ := e.(*style.Object)
			idv, _ := m.Get("id")
			urlv, _ := m.Get("url")
			id, _ := idv.(string)
			url, _ := urlv.(string)
			if url == "" {
				continue
			}
			prefix := id + ":"
			if id == "default" {
				prefix = ""
			}
			sp.loadOne(ctx, url, prefix)
		}
	}
}

func (sp *spriteSet) loadOne(ctx context.Context, base, prefix string) {
	suffix := ""
	if sp.s.view.PixelRatio > 1 {
		suffix = "@2x"
	}
	if err := sp.read(ctx, base+suffix, prefix); err != nil {
		sp.s.r.log.Warn("render: sprite skipped", "url", base+suffix, "err", err)
	}
}

// read decodes a sprite index and image and cuts out the icons.
func (sp *spriteSet) read(ctx context.Context, base, prefix string) error {
	idx, err := sp.s.res.Fetch(ctx, base+".json")
	if err != nil {
		return fmt.Errorf("sprite index: %w", err)
	}
	var entries map[string]struct {
		X, Y, Width, Height int
		PixelRatio          float64 `json:"pixelRatio"`
		SDF                 bool    `json:"sdf"`
	}
	if err := json.Unmarshal(idx, &entries); err != nil {
		return fmt.Errorf("sprite index: %w", err)
	}
	data, err := sp.s.res.Fetch(ctx, base+".png")
	if err != nil {
		return fmt.Errorf("sprite image: %w", err)
	}
	key := sheetKey(idx, data)
	if icons, ok := sheets.get(key); ok {
		for name, ic := range icons {
			sp.icons[prefix+name] = ic
		}
		return nil
	}
	icons := map[string]*spriteIcon{}
	defer func() { sheets.add(key, icons) }()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("sprite image: %w", err)
	}
	bounds := img.Bounds()
	for name, e := range entries {
		r := image.Rect(e.X, e.Y, e.X+e.Width, e.Y+e.Height).Add(bounds.Min)
		if e.Width <= 0 || e.Height <= 0 || !r.In(bounds) {
			sp.s.r.log.Warn("render: sprite icon outside its sheet skipped", "icon", name)
			continue
		}
		ratio := e.PixelRatio
		if ratio <= 0 {
			ratio = 1
		}
		ic := &spriteIcon{w: e.Width, h: e.Height, ratio: ratio, sdf: e.SDF, pix: make([]uint8, e.Width*e.Height*4)}
		cutIcon(ic.pix, img, r)
		icons[name] = ic
		sp.icons[prefix+name] = ic
	}
	return nil
}

// cutIcon writes the pixels of img in r to pix (r's size, RGBA) as
// premultiplied colour, as GL's atlas holds them and as image/draw
// converts them: only the icons of a sheet are converted.
func cutIcon(pix []uint8, img image.Image, r image.Rectangle) {
	w := r.Dx()
	src, ok := img.(*image.NRGBA)
	if !ok {
		dst := &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, r.Dy())}
		draw.Draw(dst, dst.Rect, img, r.Min, draw.Src)
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		o := src.PixOffset(r.Min.X, y)
		row := src.Pix[o : o+4*w : o+4*w]
		out := pix[(y-r.Min.Y)*4*w : (y-r.Min.Y+1)*4*w : (y-r.Min.Y+1)*4*w]
		for i := 0; i < len(row); i += 4 {
			s, d := row[i:i+4:i+4], out[i:i+4:i+4]
			switch s[3] {
			case 0: // transparent: pix is zero already
			case 0xff: // opaque: premultiplying keeps the colour
				copy(d, s)
			default: // as image/draw's Src from NRGBA to RGBA
				sa := uint32(s[3]) * 0x101
				d[0] = uint8(uint32(s[0]) * sa / 0xff >> 8)
				d[1] = uint8(uint32(s[1]) * sa / 0xff >> 8)
				d[2] = uint8(uint32(s[2]) * sa / 0xff >> 8)
				d[3] = s[3]
			}
		}
	}
}

// sheets caches decoded sprite sheets across renders by their content:
// a style's sprite is the same from one render to the next, and decoding
// its PNG costs more than drawing its icons. Icons are never modified.
var sheets = &sheetCache{m: map[[32]byte]map[string]*spriteIcon{}, max: maxSheetBytes}

// maxSheetBytes bounds the decoded icons kept, by their pixels.
const maxSheetBytes = 32 << 20

type sheetCache struct {
	mu    sync.Mutex
	m     map[[32]byte]map[string]*spriteIcon
	order [][32]byte // oldest first
	bytes int64      // pixels of the icons kept
	max   int64
}

// iconBytes is the memory of a sheet's decoded icons.
func iconBytes(icons map[string]*spriteIcon) int64 {
	n := int64(0)
	for _, ic := range icons {
		n += int64(len(ic.pix)) + 64
	}
	return n
}

func sheetKey(index, image []byte) [32]byte {
	h := sha256.New()
	h.Write(index)
	h.Write([]byte{0})
	h.Write(image)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func (c *sheetCache) get(k [32]byte) (map[string]*spriteIcon, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	icons, ok := c.m[k]
	return icons, ok
}

func (c *sheetCache) add(k [32]byte, icons map[string]*spriteIcon) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	size := iconBytes(icons)
	if size > c.max/2 {
		return // one huge sheet would push everything else out
	}
	for c.bytes+size > c.max && len(c.order) > 0 {
		c.bytes -= iconBytes(c.m[c.order[0]])
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[k] = icons
	c.order = append(c.order, k)
	c.bytes += size
}
