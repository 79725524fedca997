// Package glyphs turns TrueType and OpenType fonts into the signed distance
// field glyph ranges that MapLibre GL and Mapbox GL clients fetch from
// /fonts/{fontstack}/{start}-{end}.pbf.
//
// A range is a protocol buffer message (the "glyphs" schema used by
// node-fontnik and its successors):
//
//	message glyphs    { repeated fontstack stacks = 1; }
//	message fontstack { required string name = 1; required string range = 2; repeated glyph glyphs = 3; }
//	message glyph     { required uint32 id = 1; optional bytes bitmap = 2; required uint32 width = 3;
//	                    required uint32 height = 4; required sint32 left = 5; required sint32 top = 6;
//	                    required uint32 advance = 7; }
//
// Glyphs are rendered the way the common glyph tools do: the outline is taken
// unhinted at a 24 pixel em, its bounding box is rounded to whole pixels, and
// the bitmap covers that box plus a 3 pixel buffer on every side, so it holds
// (width+6)*(height+6) bytes, top row first. Each byte encodes the signed
// distance d (in pixels, negative inside) from the pixel centre to the outline
// as 255 - clamp(trunc(32*d + 64), 0, 255): 191 on the outline, growing
// inwards, 0 from 6 pixels outside. Inside and outside follow the nonzero
// winding rule, so overlapping contours (common in fonts made from variable
// masters) stay filled. top is the rounded top of the box minus the font's
// ascender at 24 pixels as FreeType's size metrics give it (grid-fitted:
// rounded for TrueType fonts with integer scaling, rounded up otherwise), so
// it is negative for most glyphs; left is the rounded left of the box and
// advance the unhinted horizontal advance truncated to whole pixels.
//
// Library scans a folder of fonts, names each face "Family Style" and serves
// ranges for font stacks, merging fonts glyph by glyph and caching the result.
package glyphs

import "errors"

// Errors returned by Library.Range; handlers map ErrUnknownFonts to 404 and
// ErrBadRange to 400.
var (
	ErrUnknownFonts = errors.New("none of the fonts of the stack exist")
	ErrBadRange     = errors.New("bad glyph range")
)
