package basisu

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Info is what Inspect reads from a KTX 2.0 file with BasisLZ global data.
type Info struct {
	Width, Height          int
	Levels                 int
	Supercompression       int
	ColorModel             int
	TransferFunction       int
	Channels               []int // the DFD samples' channel types
	Endpoints, Selectors   int   // codebook sizes
	RGBSlice, AlphaSlice   int   // the first level's slice lengths in bytes
	EndpointBytes          int
	SelectorBytes          int
	TableBytes             int
	LevelOffset, LevelSize int // of the first level
}

// Inspect checks the structure of a KTX 2.0 file written with BasisLZ
// supercompression (header, level index, data format descriptor, global
// data and the ranges they point to) and returns its description. It does
// not decode the compressed blocks.
func Inspect(data []byte) (Info, error) {
	var info Info
	if len(data) < headerSize || !bytes.Equal(data[:12], Identifier[:]) {
		return info, fmt.Errorf("%w: not a KTX 2.0 file", ErrImage)
	}
	le := binary.LittleEndian
	u32 := func(off int) int { return int(le.Uint32(data[off:])) }
	info.Width, info.Height = u32(20), u32(24)
	info.Levels = u32(40)
	info.Supercompression = u32(44)
	if info.Supercompression != supercompressionBasisLZ {
		return info, fmt.Errorf("%w: supercompression scheme %d, not BasisLZ", ErrImage, info.Supercompression)
	}
	if info.Width == 0 || info.Height == 0 || u32(28) != 0 || u32(36) != 1 {
		return info, fmt.Errorf("%w: not a single 2-D image", ErrImage)
	}
	if info.Levels == 0 || info.Levels > 32 {
		return info, fmt.Errorf("%w: %d levels", ErrImage, info.Levels)
	}
	within := func(off, n uint64) bool { return off <= uint64(len(data)) && n <= uint64(len(data))-off }
	if !within(headerSize, uint64(info.Levels)*levelIndexEntrySize) {
		return info, fmt.Errorf("%w: level index past the end", ErrImage)
	}
	lvOff, lvLen := le.Uint64(data[headerSize:]), le.Uint64(data[headerSize+8:])
	if !within(lvOff, lvLen) {
		return info, fmt.Errorf("%w: level 0 past the end", ErrImage)
	}
	info.LevelOffset, info.LevelSize = int(lvOff), int(lvLen)
	dfdOff, dfdLen := uint64(u32(48)), uint64(u32(52))
	if !within(dfdOff, dfdLen) || dfdLen < 4+24 || uint64(u32(int(dfdOff))) != dfdLen {
		return info, fmt.Errorf("%w: bad data format descriptor range", ErrImage)
	}
	d := int(dfdOff) + 4
	blockSize := int(le.Uint16(data[d+6:]))
	if blockSize < 24 || uint64(blockSize) > dfdLen-4 || (blockSize-24)%16 != 0 {
		return info, fmt.Errorf("%w: bad descriptor block size %d", ErrImage, blockSize)
	}
	info.ColorModel = int(data[d+8])
	info.TransferFunction = int(data[d+10])
	for s := d + 24; s < d+blockSize; s += 16 {
		info.Channels = append(info.Channels, int(data[s+3]&0x0f))
	}
	sgdOff, sgdLen := le.Uint64(data[64:]), le.Uint64(data[72:])
	if !within(sgdOff, sgdLen) || sgdLen < sgdHeaderSize {
		return info, fmt.Errorf("%w: bad global data range", ErrImage)
	}
	g := data[sgdOff : sgdOff+sgdLen]
	info.Endpoints, info.Selectors = int(le.Uint16(g)), int(le.Uint16(g[2:]))
	info.EndpointBytes, info.SelectorBytes = int(le.Uint32(g[4:])), int(le.Uint32(g[8:]))
	info.TableBytes = int(le.Uint32(g[12:]))
	ext := uint64(le.Uint32(g[16:]))
	images := uint64(info.Levels) // one layer, one face, depth 1
	need := sgdHeaderSize + images*imageDescSize + uint64(info.EndpointBytes) + uint64(info.SelectorBytes) + uint64(info.TableBytes) + ext
	if need != sgdLen {
		return info, fmt.Errorf("%w: global data holds %d bytes, its parts %d", ErrImage, sgdLen, need)
	}
	desc := g[sgdHeaderSize:]
	rgbOff, rgbLen := uint64(le.Uint32(desc[4:])), uint64(le.Uint32(desc[8:]))
	aOff, aLen := uint64(le.Uint32(desc[12:])), uint64(le.Uint32(desc[16:]))
	if rgbLen == 0 || rgbOff > lvLen || rgbLen > lvLen-rgbOff || aOff > lvLen || aLen > lvLen-aOff {
		return info, fmt.Errorf("%w: slices outside level 0", ErrImage)
	}
	info.RGBSlice, info.AlphaSlice = int(rgbLen), int(aLen)
	return info, nil
}
