// Package svg parses and rasterizes the subset of SVG that map icons use, in pure Go.
//
// Supported:
//   - elements: svg (root and nested viewports), g, a, switch, defs, symbol, use, path, rect
//     (with rx/ry), circle, ellipse, line, polyline, polygon, style, linearGradient,
//     radialGradient, stop, clipPath, mask (luminance and alpha, region and content units)
//     and image with embedded PNG or JPEG data: URIs (other references are never loaded);
//   - geometry: width/height with units, viewBox, preserveAspectRatio, transform lists
//     (matrix, translate, scale, rotate, skewX, skewY) and the full path grammar with arcs;
//   - painting: colours (hex, rgb[a], hsl[a], CSS named colours, currentColor), url(#id)
//     paints with fallback, fill-rule and clip-rule (non-zero, even-odd), fill-opacity,
//     stroke-opacity, group opacity (offscreen layers), stroke-width, stroke-linecap,
//     stroke-linejoin, stroke-miterlimit, stroke-dasharray, stroke-dashoffset, paint-order,
//     vector-effect: non-scaling-stroke;
//   - gradients: linear and radial, objectBoundingBox and userSpaceOnUse units,
//     gradientTransform, spreadMethod, focal points, href inheritance;
//   - styling: presentation attributes, style attributes and <style> sheets with type,
//     class, id and universal selectors and descendant/child combinators; DOCTYPE internal
//     entities (as Illustrator writes them).
//
// Not supported (ignored): text, marker, pattern, filter, CSS attribute selectors and
// pseudo-classes, @media, clipping to nested viewports, objectBoundingBox units on groups
// (approximated by the direct children's boxes).
//
// The rasterizer computes exact horizontal coverage and 16 sub-scanlines per pixel, with
// colours composited in premultiplied float32 RGBA. Every resource is bounded by Limits:
// source size, element count and depth, path points, rasterizer edges, image size, <use>
// depth, CSS rules, offscreen layers and a CPU work budget. External resources are never
// fetched.
package svg
