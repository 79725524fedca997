// Package symbols lays out, places and draws the symbol layers: labels
// and icons at points, along lines (anchors spaced as GL spaces them,
// glyphs laid along the line) and at the poles of polygons, shaped by the
// text package; placed from the top layer down in one collision grid;
// drawn as SDF glyphs and icons. Layouts of vector tiles are kept between
// renders in a LayoutCache.
//
// A Pass is the symbols of one render: Start places them on a goroutine
// of their own while the layers under them are drawn, Draw draws one
// layer's placed symbols.
package symbols
