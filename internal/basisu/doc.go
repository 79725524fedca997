// Package basisu encodes images as KTX 2.0 files with Basis Universal ETC1S
// supercompression (BasisLZ), the "basis" raster tile format.
//
// The encoder is written from the public format descriptions: the KTX 2.0
// specification (container, level index, data format descriptor, BasisLZ
// global data) and the .basis / ETC1S bitstream specification (canonical
// Huffman tables, endpoint and selector codebooks, slice block coding).
//
// ETC1S describes each 4x4 block of pixels by one base colour (5:5:5), one
// of eight intensity tables and a 2-bit selector per pixel, the same
// intensity offset added to red, green and blue. The encoder finds the best
// such block for each 4x4 block of the image, then clusters the blocks'
// endpoints (base colour and table) and selectors into two codebooks of at
// most Options.Endpoints and Options.Selectors entries (weighted k-means,
// then every block re-picks the entries that fit it best), and writes the
// per-block codebook indices with the format's predictors (left, above,
// above-left, DPCM), run lengths, the selector history buffer and canonical
// Huffman codes.
//
// Images with any pixel not fully opaque get a second, alpha slice (the
// alpha values as grey ETC1S blocks, read back from the green channel, as
// the format prescribes); opaque images carry the RGB slice only. Both
// slices share the codebooks. The output has one mip level.
package basisu
