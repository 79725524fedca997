// Package svg parses and rasterizes the subset of SVG that map icons use, in pure Go.
//
// Supported: the svg, g, a, switch, defs, symbol, use, path, rect (with rx/ry), circle,
// ellipse, line, polyline, polygon, style, linearGradient, radialGradient, stop, clipPath and
// mask (luminance and alpha, mask region and content units) elements; image elements with
// embedded PNG or JPEG data: URIs (other references are never loaded); nested svg viewports; width/height with units, viewBox and preserveAspectRatio;
// transform lists (matrix, translate, scale, rotate, skewX, skewY); the full path grammar
// including arcs; fill and stroke with colours (hex, rgb[a], hsl[a], the CSS named
// colours, currentColor), url(#gradient) with fallback, fill-rule and clip-rule (non-zero and
// even-odd), fill-opacity, stroke-opacity, opacity on groups (offscreen layers),
// stroke-width, stroke-linecap, stroke-linejoin, stroke-miterlimit, stroke-dasharray and
// stroke-dashoffset; linear and radial gradients (objectBoundingBox and userSpaceOnUse
// units, gradientTransform, spreadMethod, focal points, href inheritance); presentation
// attributes, style attributes and <style> sheets with type, class, id and universal
// selectors and descendant/child combinators; DOCTYPE internal entities (as Illustrator
// writes them).
//
// Not supported (ignored): text, marker, pattern, filter, CSS attribute
// selectors and pseudo-classes, @media, vector-effect, clipping to nested viewports,
// objectBoundingBox units on groups (approximated by the direct children's boxes).
//
// The rasterizer computes exact horizontal coverage and 16 sub-scanlines per pixel, with
// colours composited in premultiplied float32 RGBA. Every resource is bounded by Limits:
// source size, element count and depth, path points, rasterizer edges, image size, <use>
// depth, CSS rules and offscreen layers. External resources are never fetched.
package svg
