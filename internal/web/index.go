package web

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed templates/index.html
var indexHTML string

var indexTmpl = template.Must(template.New("index").Parse(indexHTML))

// IndexItem is one map or tileset on the index page.
type IndexItem struct {
	// ID is the map or tileset id; Title is shown (ID when empty).
	ID, Title string
	// Meta is a short description such as "vector tileset, z0-8".
	Meta string
}

// IndexView describes the index page at the server's root.
type IndexView struct {
	BasePath string
	// Query is an optional query suffix (e.g. "key=abc") added to the
	// links of the maps, tilesets and documents (not to the page's assets).
	Query    string
	Maps     []IndexItem
	Tilesets []IndexItem
}

type indexLink struct{ Href, Text string }

type indexEntry struct {
	Href, Title, Meta string
	Links             []indexLink
}

// Index writes the server's root page: the published maps and tilesets with
// links to their viewers and documents.
func Index(w io.Writer, v IndexView) error {
	base, q, err := normalise("index", v.BasePath, v.Query) // q is "" or "?..."
	if err != nil {
		return err
	}
	data := struct {
		Favicon, CSS, Conformance, Health string
		Maps, Tilesets                    []indexEntry
	}{
		Favicon: assetURL(base, "favicon.svg"), CSS: assetURL(base, "viewer.css"),
		Conformance: base + "/ogc/conformance" + q, Health: base + "/health",
	}
	entry := func(kind string, it IndexItem, docs [][2]string) indexEntry {
		prefix := base + "/" + kind + "/" + escapeSegment(it.ID)
		e := indexEntry{Href: prefix + "/" + q, Title: it.Title, Meta: it.Meta}
		if e.Title == "" {
			e.Title = it.ID
		}
		for _, d := range docs {
			e.Links = append(e.Links, indexLink{prefix + d[0] + q, d[1]})
		}
		return e
	}
	for _, m := range v.Maps {
		data.Maps = append(data.Maps, entry("maps", m, [][2]string{{"/style.json", "style"}, {"/tiles.json", "TileJSON"}, {"/WMTSCapabilities.xml", "WMTS"}}))
	}
	for _, t := range v.Tilesets {
		data.Tilesets = append(data.Tilesets, entry("tiles", t, [][2]string{{"/tiles.json", "TileJSON"}, {"/tiles", "OGC API"}, {"/WMTSCapabilities.xml", "WMTS"}}))
	}
	var buf bytes.Buffer
	if err := indexTmpl.Execute(&buf, data); err != nil {
		return fmt.Errorf("web: render index: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
