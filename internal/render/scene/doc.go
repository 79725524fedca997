// Package scene holds what every room of the renderer shares: the view
// and its frame (world coordinates to device pixels, with the camera's
// tilt), the features the sources hand to the layers (Feature, Runs),
// their clipping and slicing to tile squares, and a layer of one render
// (Layer): its style, compiled filter and properties (Compiler, Prepared),
// evaluated through Layer's accessors, and the canvas it draws on.
//
// It imports no other room; sources, layers and symbols import it.
package scene
