package pmtiles

import (
	"errors"
	"fmt"
	"math/bits"
)

// MaxZoom is the largest zoom level whose tile ids fit in 64 bits.
const MaxZoom = 31

// zoomBase[z] is the tile id of tile z/0/0: the number of tiles in all lower
// zoom levels, (4^z - 1) / 3.
var zoomBase = func() [MaxZoom + 2]uint64 {
	var b [MaxZoom + 2]uint64
	for z := 1; z <= MaxZoom+1; z++ {
		b[z] = b[z-1] + 1<<(2*(z-1))
	}
	return b
}()

// MaxTileID is the largest valid tile id, the last tile of zoom MaxZoom:
// (4^32-1)/3 - 1.
const MaxTileID uint64 = 6148914691236517204

// ZXYToID converts a tile address to its PMTiles tile id: the number of tiles
// in all lower zoom levels plus the position of (x, y) along the Hilbert curve
// of zoom z. It fails when z > MaxZoom or x, y >= 2^z.
func ZXYToID(z, x, y int) (uint64, error) {
	if z < 0 || z > MaxZoom {
		return 0, fmt.Errorf("%w: zoom %d outside 0..%d", ErrCoord, z, MaxZoom)
	}
	if n := 1 << z; x < 0 || y < 0 || x >= n || y >= n {
		return 0, fmt.Errorf("%w: tile %d/%d/%d outside the grid", ErrCoord, z, x, y)
	}
	return zoomBase[z] + hilbertXYToD(uint8(z), uint32(x), uint32(y)), nil
}

// ErrCoord is wrapped by errors about tile coordinates outside the grid.
var ErrCoord = errors.New("pmtiles: invalid tile coordinates")

// hilbertXYToD returns the Hilbert curve distance of (x, y) on a 2^z grid.
func hilbertXYToD(z uint8, x, y uint32) uint64 {
	var d uint64
	n := uint32(0)
	if z > 0 {
		n = uint32(1<<z - 1)
	}
	for s := uint32(1) << z >> 1; s > 0; s >>= 1 {
		var rx, ry uint32
		if x&s != 0 {
			rx = 1
		}
		if y&s != 0 {
			ry = 1
		}
		d += uint64(s) * uint64(s) * uint64((3*rx)^ry)
		// Rotate the quadrant so the sub-curve has the canonical orientation.
		if ry == 0 {
			if rx == 1 {
				x = n - x
				y = n - y
			}
			x, y = y, x
		}
	}
	return d
}

// IDToZXY converts a PMTiles tile id back to its tile address. It fails when
// id > MaxTileID.
func IDToZXY(id uint64) (z, x, y int, err error) {
	if id > MaxTileID {
		return 0, 0, 0, fmt.Errorf("%w: tile id %d exceeds the maximum %d", ErrCoord, id, MaxTileID)
	}
	zz := zoomOfID(id)
	xx, yy := hilbertDToXY(zz, id-zoomBase[zz])
	return int(zz), int(xx), int(yy), nil
}

// zoomOfID returns the zoom level holding tile id (id <= MaxTileID).
func zoomOfID(id uint64) uint8 {
	// zoomBase[z] <= id < zoomBase[z+1]; 3*id+1 lies in [4^z, 4^(z+1)) but
	// may overflow, so estimate from the bit length and correct.
	z := uint8((bits.Len64(id) - 1) / 2)
	if id == 0 {
		return 0
	}
	for z > 0 && zoomBase[z] > id {
		z--
	}
	for z < MaxZoom && zoomBase[z+1] <= id {
		z++
	}
	return z
}

// hilbertDToXY returns the cell of a 2^z grid at Hilbert distance d.
func hilbertDToXY(z uint8, d uint64) (x, y uint32) {
	t := d
	for s := uint32(1); z > 0 && s != 0 && uint64(s) < uint64(1)<<z; s <<= 1 {
		rx := uint32(1 & (t >> 1))
		ry := uint32(1 & (t ^ uint64(rx)))
		if ry == 0 {
			if rx == 1 {
				x = s - 1 - x
				y = s - 1 - y
			}
			x, y = y, x
		}
		x += s * rx
		y += s * ry
		t >>= 2
	}
	return x, y
}

// ParentID returns the tile id of the parent of the tile with the given id.
// It reports false for the root tile and for invalid ids.
func ParentID(id uint64) (uint64, bool) {
	z, x, y, err := IDToZXY(id)
	if err != nil || z == 0 {
		return 0, false
	}
	p, err := ZXYToID(z-1, x/2, y/2)
	return p, err == nil
}
