// Package staticmap reads static map requests and turns them into views.
//
// A static map request names a viewport (a center and zoom, bounds, or
// "auto"), an image size with an optional @2x scale and a format, and
// overlays: paths and markers, in the grammar of the public API (spec 000
// "Static maps", with the extra parameters and limits of spec 002). Parse
// checks every value and says what is wrong and where; View computes the
// center and zoom of the image (fitting bounds or overlays with padding).
// Drawing is the renderer's business; this package knows nothing of HTTP.
package staticmap
