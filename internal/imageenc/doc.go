// Package imageenc encodes rendered images as PNG, JPEG, WebP or basis
// (KTX 2.0 with Basis Universal ETC1S supercompression, by package basisu).
//
// Rendered images arrive as premultiplied RGBA (*image.RGBA) or straight
// RGBA (*image.NRGBA). PNG is written by the package's own writer over a fast
// deflate (klauspost/compress): truecolor with alpha, truecolor when every
// pixel is opaque, and an indexed palette (with a transparency chunk) when the
// image has at most 256 distinct colours, which is lossless; large images are
// converted, filtered and deflated in bands of rows on several cores, joined
// into one zlib stream. JPEG uses the
// standard library with a quality, flattened over a background colour. WebP,
// lossy with a quality or lossless, is encoded by libwebp compiled to
// WebAssembly (gen2brain/webp); Warm compiles that module ahead of the first
// request.
package imageenc
