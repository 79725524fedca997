package style

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// Resolver says how Rewrite turns the resource URLs of a style into public
// URLs of the server.
//
// The forms understood, and what they become ({base} is BaseURL):
//
//   - absolute http(s) URLs stay as they are; when they point into {base}
//     they are treated as this server's (key added, tileset checked);
//   - root-relative paths ("/tiles/osm/tiles.json", "/fonts/{fontstack}/{range}.pbf",
//     "/maps/basic/sprite") become {base} + path;
//   - "mbtiles://NAME" and "pmtiles://NAME", also written "mbtiles://{NAME}" or
//     with the file name "mbtiles://NAME.mbtiles" (the forms tileserver-gl
//     accepts), name a tileset of this server: a source "url" becomes
//     {base}/tiles/ID/tiles.json, an entry of "tiles" becomes
//     {base}/tiles/ID/{z}/{x}/{y};
//   - "local://PATH": tileserver-gl's "local://data/NAME.json" is the tileset
//     NAME; a PATH under one of the server's routes (fonts/, tiles/, maps/)
//     is taken from the server's root ("local://fonts/{fontstack}/{range}.pbf"
//     is {base}/fonts/...); any other PATH is relative, as below
//     ("local://sprites/sprite" is {base}/maps/MAPID/sprites/sprite);
//   - other relative URLs are resolved against the style's own folder,
//     {base}/maps/MAPID/ (sprite "sprite" is {base}/maps/MAPID/sprite), except
//     a relative "glyphs" template, which is resolved under {base}/fonts/;
//   - any other scheme (mapbox://, data:, file://...) is left unchanged, and
//     mapbox:// and file:// are reported as problems (clients of this server
//     cannot load them).
//
// A tileset that Tileset does not know is reported as a Problem, but the
// source is kept and points where the tileset would be served: a client
// shows the rest of the map and logs one failing source, whereas a style
// whose layers name a source that is not there fails validation in the
// client and shows nothing.
type Resolver struct {
	// BaseURL is the server's public root URL, such as
	// "https://maps.example.com" or "https://example.com/tessera". When empty,
	// the rewritten URLs are root-relative.
	BaseURL string
	// MapID is the identifier of the map the style belongs to.
	MapID string
	// Key, when not empty, is added as the "key" query parameter to every URL
	// of this server (never to third-party URLs).
	Key string
	// Tileset looks up a tileset by the name a style gives it and returns the
	// identifier it is served under. Nil means every name exists as written.
	Tileset func(name string) (id string, ok bool)
}

// Problem is a resource reference that Rewrite could not resolve fully.
type Problem struct {
	Path    string `json:"path"`              // JSON path of the URL in the style, e.g. "sources.osm.url"
	URL     string `json:"url"`               // the URL as written in the style
	Tileset string `json:"tileset,omitempty"` // the name of the missing tileset, when that is the problem
	Message string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s (%q)", p.Path, p.Message, p.URL)
}

// Rewrite returns the style as JSON with every resource URL (sources' url,
// urls, tiles and GeoJSON data URLs, glyphs, sprite in both forms, font
// faces) resolved by r, and the problems found. The style itself is not
// modified. Problems are sorted by path.
func (s *Style) Rewrite(r Resolver) ([]byte, []Problem) {
	rw := &rewriter{r: r, base: strings.TrimRight(r.BaseURL, "/")}
	doc := deepCopy(s.doc).(*Object)

	if srcs, ok := get(doc, "sources").(*Object); ok {
		for _, name := range srcs.keys {
			src, ok := srcs.vals[name].(*Object)
			if !ok {
				continue
			}
			p := "sources." + name
			typ := strAt(src, "type")
			if u, ok := src.vals["url"].(string); ok {
				kind := kindTileJSON
				if typ == "image" || typ == "video" {
					kind = kindFile
				}
				src.vals["url"] = rw.resolve(p+".url", u, kind)
			}
			for _, member := range []string{"tiles", "urls"} {
				list, ok := src.vals[member].([]any)
				if !ok {
					continue
				}
				kind := kindTile
				if member == "urls" {
					kind = kindFile
				}
				for i, e := range list {
					if u, ok := e.(string); ok {
						list[i] = rw.resolve(fmt.Sprintf("%s.%s[%d]", p, member, i), u, kind)
					}
				}
			}
			if typ == "geojson" {
				if u, ok := src.vals["data"].(string); ok {
					src.vals["data"] = rw.resolve(p+".data", u, kindFile)
				}
			}
		}
	}
	if g, ok := get(doc, "glyphs").(string); ok {
		doc.vals["glyphs"] = rw.resolve("glyphs", g, kindGlyphs)
	}
	switch sp := get(doc, "sprite").(type) {
	case string:
		doc.vals["sprite"] = rw.resolve("sprite", sp, kindFile)
	case []any:
		for i, e := range sp {
			if o, ok := e.(*Object); ok {
				if u, ok := o.vals["url"].(string); ok {
					o.vals["url"] = rw.resolve(fmt.Sprintf("sprite[%d].url", i), u, kindFile)
				}
			}
		}
	}
	if ff, ok := get(doc, "font-faces").(*Object); ok {
		for _, name := range ff.keys {
			switch f := ff.vals[name].(type) {
			case string:
				ff.vals[name] = rw.resolve("font-faces."+name, f, kindFile)
			case []any:
				for i, e := range f {
					if o, ok := e.(*Object); ok {
						if u, ok := o.vals["url"].(string); ok {
							o.vals["url"] = rw.resolve(fmt.Sprintf("font-faces.%s[%d].url", name, i), u, kindFile)
						}
					}
				}
			}
		}
	}
	out, err := doc.MarshalJSON()
	if err != nil {
		// Every value in a parsed document encodes; this would be a defect.
		rw.problem("", "", "", fmt.Sprintf("encode style: %v", err))
		return nil, rw.problems
	}
	sort.SliceStable(rw.problems, func(i, j int) bool { return rw.problems[i].Path < rw.problems[j].Path })
	return out, rw.problems
}

type urlKind int

const (
	kindTileJSON urlKind = iota // a source's TileJSON url
	kindTile                    // a tile URL template
	kindGlyphs                  // the glyphs template
	kindFile                    // sprite, image, GeoJSON data, font file
)

type rewriter struct {
	r        Resolver
	base     string
	problems []Problem
}

func (rw *rewriter) problem(p, u, tileset, msg string) {
	rw.problems = append(rw.problems, Problem{Path: p, URL: u, Tileset: tileset, Message: msg})
}

// resolve returns the public form of one URL.
func (rw *rewriter) resolve(p, u string, kind urlKind) string {
	trimmed := strings.TrimSpace(u)
	if trimmed == "" {
		return u
	}
	scheme, rest, hasScheme := splitScheme(trimmed)
	switch {
	case hasScheme && (scheme == "mbtiles" || scheme == "pmtiles"):
		return rw.tilesetURL(p, u, rest, kind)
	case hasScheme && scheme == "local":
		return rw.localScheme(p, u, strings.TrimLeft(rest, "/"), kind)
	case hasScheme && (scheme == "http" || scheme == "https"):
		if rw.base != "" && strings.Contains(rw.base, "://") && hasPathPrefix(trimmed, rw.base) {
			rw.checkTilesPath(p, u, trimmed[len(rw.base):])
			return withKey(trimmed, rw.r.Key)
		}
		return u
	case hasScheme:
		if scheme == "mapbox" || scheme == "file" {
			rw.problem(p, u, "", fmt.Sprintf("%s:// URLs are not served by this server; left unchanged", scheme))
		}
		return u
	case strings.HasPrefix(trimmed, "//"):
		return u // protocol-relative: another host
	case strings.HasPrefix(trimmed, "/"):
		return rw.local(trimmed, p, u)
	}
	return rw.relative(p, u, trimmed, kind)
}

// serverRoutes are the first path segments of this server's resources: a
// local:// URL starting with one of them is taken from the server's root.
var serverRoutes = []string{"fonts/", "tiles/", "maps/"}

// localScheme resolves local://REST: tileserver-gl's local://data/NAME.json
// (a tileset's TileJSON) is the tileset NAME; a path under one of this
// server's routes is taken from its root; anything else from the style's
// folder (or, for glyphs, from /fonts/).
func (rw *rewriter) localScheme(p, orig, rest string, kind urlKind) string {
	if name, ok := strings.CutPrefix(rest, "data/"); ok && kind == kindTileJSON {
		if name, ok := strings.CutSuffix(name, ".json"); ok && name != "" && !strings.Contains(name, "/") {
			return rw.tilesetURL(p, orig, name, kind)
		}
	}
	for _, r := range serverRoutes {
		if strings.HasPrefix(rest, r) {
			return rw.local("/"+rest, p, orig)
		}
	}
	return rw.relative(p, orig, rest, kind)
}

// relative resolves a relative reference against the style's folder,
// {base}/maps/MAPID/, or /fonts/ for the glyphs template.
func (rw *rewriter) relative(p, orig, ref string, kind urlKind) string {
	dir := "/maps/" + url.PathEscape(rw.r.MapID) + "/"
	if kind == kindGlyphs {
		dir = "/fonts/"
	}
	return rw.local(joinRef(dir, ref), p, orig)
}

// local returns {base}+ref for a root-relative reference of this server.
func (rw *rewriter) local(ref, p, orig string) string {
	rw.checkTilesPath(p, orig, ref)
	return withKey(rw.base+ref, rw.r.Key)
}

// checkTilesPath reports a root-relative /tiles/NAME/... reference to a
// tileset the server does not have.
func (rw *rewriter) checkTilesPath(p, orig, ref string) {
	if rw.r.Tileset == nil {
		return
	}
	rest, ok := strings.CutPrefix(ref, "/tiles/")
	if !ok {
		return
	}
	name, _, _ := strings.Cut(rest, "/")
	name, _, _ = strings.Cut(name, "?")
	if uname, err := url.PathUnescape(name); err == nil {
		name = uname
	}
	if name == "" {
		return
	}
	if _, ok := rw.r.Tileset(name); !ok {
		rw.problem(p, orig, name, fmt.Sprintf("tileset %q not found", name))
	}
}

// tilesetURL resolves mbtiles://NAME and pmtiles://NAME.
func (rw *rewriter) tilesetURL(p, orig, rest string, kind urlKind) string {
	name := strings.TrimRight(rest, "/")
	if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") {
		name = name[1 : len(name)-1]
	}
	id, ok := rw.lookup(name)
	if !ok {
		if name == "" {
			rw.problem(p, orig, "", "no tileset named")
		} else {
			rw.problem(p, orig, name, fmt.Sprintf("tileset %q not found; the source is kept and will fail to load", name))
		}
		id = name
	}
	prefix := rw.base + "/tiles/" + url.PathEscape(id)
	if kind == kindTile {
		return withKey(prefix+"/{z}/{x}/{y}", rw.r.Key)
	}
	return withKey(prefix+"/tiles.json", rw.r.Key)
}

// lookup finds a tileset by name, then by the name without a .mbtiles or
// .pmtiles file extension.
func (rw *rewriter) lookup(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if rw.r.Tileset == nil {
		return strings.TrimSuffix(strings.TrimSuffix(name, ".mbtiles"), ".pmtiles"), true
	}
	if id, ok := rw.r.Tileset(name); ok {
		return id, true
	}
	for _, ext := range []string{".mbtiles", ".pmtiles"} {
		if base, ok := strings.CutSuffix(name, ext); ok && base != "" {
			if id, ok := rw.r.Tileset(base); ok {
				return id, true
			}
		}
	}
	return "", false
}

// splitScheme splits "scheme://rest" or "scheme:rest" (RFC 3986 scheme).
func splitScheme(u string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(u, ':')
	if i <= 0 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := u[j]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	scheme = strings.ToLower(u[:i])
	rest = strings.TrimPrefix(u[i+1:], "//")
	return scheme, rest, true
}

// hasPathPrefix reports whether u is base or below it.
func hasPathPrefix(u, base string) bool {
	if !strings.HasPrefix(u, base) {
		return false
	}
	if len(u) == len(base) {
		return true
	}
	switch u[len(base)] {
	case '/', '?', '#':
		return true
	}
	return false
}

// joinRef resolves a relative reference against a directory path, keeping
// its query and fragment and URL template braces as they are.
func joinRef(dir, ref string) string {
	p, suffix := ref, ""
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		p, suffix = ref[:i], ref[i:]
	}
	joined := path.Join(dir, p)
	if strings.HasSuffix(p, "/") && !strings.HasSuffix(joined, "/") {
		joined += "/"
	}
	return joined + suffix
}

// withKey adds key=K to the query of u, before any fragment, unless u has a
// key parameter already or key is empty.
func withKey(u, key string) string {
	if key == "" {
		return u
	}
	main, frag := u, ""
	if i := strings.IndexByte(u, '#'); i >= 0 {
		main, frag = u[:i], u[i:]
	}
	if i := strings.IndexByte(main, '?'); i >= 0 {
		for _, kv := range strings.Split(main[i+1:], "&") {
			if k, _, _ := strings.Cut(kv, "="); k == "key" {
				return u
			}
		}
		sep := "&"
		if strings.HasSuffix(main, "?") || strings.HasSuffix(main, "&") {
			sep = ""
		}
		return main + sep + "key=" + url.QueryEscape(key) + frag
	}
	return main + "?key=" + url.QueryEscape(key) + frag
}
