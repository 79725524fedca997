// Package expr implements the expression language of the GL style
// specification (version 8): parsing and type checking of expressions (with
// the exact error keys and messages of the reference implementation), constant
// folding, the legacy function forms (stops/property/base/type/default)
// converted to expressions, legacy filters, and evaluation against a zoom
// level and a feature.
//
// Entry points:
//   - Compile compiles an expression (or legacy function object) for a style
//     property described by a PropertySpec (PropertySpecs reads them from
//     v8.json). The checks match the reference createPropertyExpression:
//     data/zoom support of the property, and "zoom" only as the input of a
//     top-level step or interpolate.
//   - CompileValue compiles a value as found in a style document, where
//     constants such as "red", [0, 0] or ["Open Sans Regular"] are literals.
//   - CompileFilter compiles a layer filter (expression or legacy syntax).
//
// (*Expression).Eval evaluates for an EvalContext (zoom, Feature, feature
// state, global state, available images, canonical tile); errors are
// *EvalError with the key path of the failing sub-expression. EvalNumber,
// EvalColor, EvalBool and EvalString are typed paths that do not allocate
// for the common property/filter shapes.
//
// Colors are stored straight (not premultiplied) with components in 0..1;
// Color.Premultiplied returns the premultiplied form the GL renderers use.
// Strings are indexed by Unicode code point (length, slice, index-of), as the
// reference implementation does. Locale-aware collation uses
// golang.org/x/text/collate; number-format implements Intl-like formatting
// with per-language separators, English currency symbols and unit names.
package expr
