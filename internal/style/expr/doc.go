// Package expr implements the expression language of the GL style
// specification (version 8): parsing and type checking of expressions (with
// the exact error keys and messages of the reference implementation), constant
// folding, the legacy function forms (stops/property/base/type) converted to
// expressions, and evaluation against a zoom level and a feature.
//
// Compile turns JSON into an *Expression for a style property described by a
// PropertySpec. Eval evaluates it for an EvalContext (zoom, feature, feature
// state, global state, available images, canonical tile). EvalNumber,
// EvalColor, EvalBool and EvalString are allocation-free typed fast paths for
// the renderer.
//
// Colors are stored straight (not premultiplied) with components in 0..1;
// Color.Premultiplied returns the premultiplied form the GL renderers use.
// Strings are indexed by Unicode code point (length, slice, index-of), as the
// reference implementation does.
package expr
