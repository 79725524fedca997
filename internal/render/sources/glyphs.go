package sources

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/render/text"
)

// Glyphs holds the glyph ranges fetched during one render, by font stack
// and range start. A range that cannot be fetched or decoded is logged once
// and stays empty: its text is not drawn.
type Glyphs struct {
	s   *Set
	url string // the style's glyphs template
	// mu guards stacks: symbol layers are laid out concurrently.
	mu     sync.RWMutex
	stacks map[string]map[int]map[rune]*glyphs.Glyph
}

// NewGlyphs returns the glyphs of s's style, read on first use.
func NewGlyphs(s *Set) *Glyphs {
	g := &Glyphs{s: s, stacks: map[string]map[int]map[rune]*glyphs.Glyph{}}
	if v, ok := s.Style.Doc().Get("glyphs"); ok {
		g.url, _ = v.(string)
	}
	return g
}

// Glyph returns the glyph of r in a font stack (names joined by commas).
func (g *Glyphs) Glyph(ctx context.Context, stack string, r rune) (*glyphs.Glyph, bool) {
	if r < 0 || r > 0xffff || g.url == "" {
		return nil, false
	}
	start := int(r) &^ 0xff
	g.mu.RLock()
	m, ok := g.stacks[stack][start]
	g.mu.RUnlock()
	if ok {
		gl, ok := m[r]
		return gl, ok
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ranges := g.stacks[stack]
	if ranges == nil {
		ranges = map[int]map[rune]*glyphs.Glyph{}
		g.stacks[stack] = ranges
	}
	m, ok = ranges[start]
	if !ok {
		m = g.load(ctx, stack, start)
		ranges[start] = m
	}
	gl, ok := m[r]
	return gl, ok
}

// load fetches and decodes one range.
func (g *Glyphs) load(ctx context.Context, stack string, start int) map[rune]*glyphs.Glyph {
	rng := strconv.Itoa(start) + "-" + strconv.Itoa(start+255)
	url := strings.NewReplacer("{fontstack}", stack, "{range}", rng).Replace(g.url)
	m := map[rune]*glyphs.Glyph{}
	data, err := g.s.Res.Fetch(ctx, url)
	if err != nil {
		g.s.Log.Warn("render: glyph range unavailable", "url", url, "err", err)
		return m
	}
	stacks, err := glyphs.DecodeRange(data)
	if err != nil {
		g.s.Log.Warn("render: corrupt glyph range skipped", "url", url, "err", err)
		return m
	}
	for _, fs := range stacks {
		for i := range fs.Glyphs {
			gl := &fs.Glyphs[i]
			if _, dup := m[rune(gl.ID)]; !dup {
				m[rune(gl.ID)] = gl
			}
		}
	}
	return m
}

// lookup adapts the set to text.Shape.
func (g *Glyphs) lookup(ctx context.Context) text.Lookup {
	return func(stack string, r rune) (text.Metrics, bool) {
		gl, ok := g.Glyph(ctx, stack, r)
		if !ok {
			return text.Metrics{}, false
		}
		return text.Metrics{Width: int(gl.Width), Height: int(gl.Height), Left: int(gl.Left), Top: int(gl.Top), Advance: float64(gl.Advance)}, true
	}
}
