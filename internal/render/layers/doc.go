// Package layers draws the layers that are not symbols, as GL draws
// them: background, fill (with patterns and antialiased outlines), line
// (its own tessellation into joins, caps and dashes, gradients and
// patterns), circle, raster and image sources, hillshade, heatmap and
// fill-extrusion (with GL's lighting and a depth buffer).
//
// A Painter draws one layer of one render (a scene.Layer) onto its canvas,
// from the features or textures the sources room reads.
package layers
