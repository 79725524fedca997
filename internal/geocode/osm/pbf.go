package osm

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// Limits of the PBF format (from the format's description: a BlobHeader is
// at most 64 KiB, a Blob, compressed or not, at most 32 MiB).
const (
	maxBlobHeaderSize = 64 << 10
	maxBlobSize       = 32 << 20
)

// errFormat marks malformed input.
var errFormat = errors.New("malformed osm.pbf")

// tag is one key=value pair of an element; the strings belong to the block's
// string table.
type tag struct{ k, v string }

// tagList is the tags of one element.
type tagList []tag

// get returns the value of key k ("" when absent).
func (t tagList) get(k string) string {
	for _, kv := range t {
		if kv.k == k {
			return kv.v
		}
	}
	return ""
}

// member is one member of a relation.
type member struct {
	typ  int8 // 0 node, 1 way, 2 relation
	id   int64
	role string
}

// handler receives the elements of a block. A nil func skips that element
// kind without decoding it. Slices passed to the funcs are reused: copy what
// must outlive the call. Coordinates are in 1e-7 degrees.
type handler struct {
	node     func(id int64, lat, lon int32, tags tagList) error
	way      func(id int64, refs []int64, tags tagList) error
	relation func(id int64, members []member, tags tagList) error
}

// pbfReader reads the blobs of an .osm.pbf stream.
type pbfReader struct {
	r      *bufio.Reader
	hdr    []byte
	blob   []byte
	raw    bytes.Buffer
	header bool // OSMHeader seen
	// scratch space of the block decoder
	strs    []string
	tags    tagList
	refs    []int64
	members []member
	ids     []int64
	lats    []int64
	lons    []int64
	kvs     []int64
	keys    []int64
	vals    []int64
	roles   []int64
	types   []int64
}

func newPBFReader(r io.Reader) *pbfReader {
	return &pbfReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next reads the next blob and returns its type and uncompressed content
// (valid until the next call). It returns io.EOF at the clean end.
func (p *pbfReader) next() (string, []byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(p.r, lenBuf[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, io.EOF
		}
		return "", nil, fmt.Errorf("%w: blob header length: %v", errFormat, err)
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if n == 0 || n > maxBlobHeaderSize {
		return "", nil, fmt.Errorf("%w: blob header of %d bytes", errFormat, n)
	}
	p.hdr = grow(p.hdr, int(n))
	if _, err := io.ReadFull(p.r, p.hdr); err != nil {
		return "", nil, fmt.Errorf("%w: blob header: %v", errFormat, err)
	}
	var typ string
	dataSize := int64(-1)
	err := eachField(p.hdr, func(num protowire.Number, wt protowire.Type, v uint64, b []byte) error {
		switch {
		case num == 1 && wt == protowire.BytesType:
			typ = string(b)
		case num == 3 && wt == protowire.VarintType:
			dataSize = int64(v)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if dataSize < 0 || dataSize > maxBlobSize {
		return "", nil, fmt.Errorf("%w: blob of %d bytes", errFormat, dataSize)
	}
	p.blob = grow(p.blob, int(dataSize))
	if _, err := io.ReadFull(p.r, p.blob); err != nil {
		return "", nil, fmt.Errorf("%w: blob: %v", errFormat, err)
	}
	data, err := p.decompress(p.blob)
	if err != nil {
		return "", nil, err
	}
	return typ, data, nil
}

// decompress returns the content of a Blob message.
func (p *pbfReader) decompress(blob []byte) ([]byte, error) {
	var raw, zdata []byte
	var hasRaw, hasZlib bool
	rawSize := int64(-1)
	var other protowire.Number
	err := eachField(blob, func(num protowire.Number, wt protowire.Type, v uint64, b []byte) error {
		switch {
		case num == 1 && wt == protowire.BytesType:
			raw, hasRaw = b, true
		case num == 2 && wt == protowire.VarintType:
			rawSize = int64(v)
		case num == 3 && wt == protowire.BytesType:
			zdata, hasZlib = b, true
		case num >= 4 && num <= 7 && wt == protowire.BytesType:
			other = num
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case hasRaw:
		return raw, nil
	case hasZlib:
		if rawSize < 0 || rawSize > maxBlobSize {
			return nil, fmt.Errorf("%w: uncompressed blob size %d", errFormat, rawSize)
		}
		zr, err := zlib.NewReader(bytes.NewReader(zdata))
		if err != nil {
			return nil, fmt.Errorf("%w: zlib: %v", errFormat, err)
		}
		p.raw.Reset()
		// Read one byte more than announced to detect a lying raw_size
		// without ever holding more than maxBlobSize+1 bytes.
		if _, err := p.raw.ReadFrom(io.LimitReader(zr, rawSize+1)); err != nil {
			return nil, fmt.Errorf("%w: zlib: %v", errFormat, err)
		}
		if int64(p.raw.Len()) != rawSize {
			return nil, fmt.Errorf("%w: blob inflates to %d bytes, announced %d", errFormat, p.raw.Len(), rawSize)
		}
		return p.raw.Bytes(), nil
	case other != 0:
		names := map[protowire.Number]string{4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"}
		return nil, fmt.Errorf("unsupported blob compression %s", names[other])
	}
	return nil, fmt.Errorf("%w: blob without data", errFormat)
}

// supportedFeatures are the required features of a header this reader
// handles.
var supportedFeatures = map[string]bool{"OsmSchema-V0.6": true, "DenseNodes": true}

// checkHeader validates an OSMHeader block.
func checkHeader(data []byte) error {
	return eachField(data, func(num protowire.Number, wt protowire.Type, v uint64, b []byte) error {
		if num == 4 && wt == protowire.BytesType && !supportedFeatures[string(b)] {
			return fmt.Errorf("osm.pbf requires unsupported feature %q", string(b))
		}
		return nil
	})
}

// scan reads every blob of r and passes the elements to h.
func scan(ctx context.Context, r io.Reader, h *handler) error {
	p := newPBFReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		typ, data, err := p.next()
		if err == io.EOF {
			if !p.header {
				return fmt.Errorf("%w: no OSMHeader block", errFormat)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch typ {
		case "OSMHeader":
			if err := checkHeader(data); err != nil {
				return err
			}
			p.header = true
		case "OSMData":
			if !p.header {
				return fmt.Errorf("%w: OSMData before OSMHeader", errFormat)
			}
			if err := p.block(data, h); err != nil {
				return err
			}
		}
		// Unknown blob types are skipped, as the format asks.
	}
}

// block decodes one PrimitiveBlock.
func (p *pbfReader) block(data []byte, h *handler) error {
	p.strs = p.strs[:0]
	granularity, latOff, lonOff := int64(100), int64(0), int64(0)
	var groups [][]byte
	err := eachField(data, func(num protowire.Number, wt protowire.Type, v uint64, b []byte) error {
		switch {
		case num == 1 && wt == protowire.BytesType:
			return eachField(b, func(num protowire.Number, wt protowire.Type, _ uint64, s []byte) error {
				if num == 1 && wt == protowire.BytesType {
					p.strs = append(p.strs, string(s))
				}
				return nil
			})
		case num == 2 && wt == protowire.BytesType:
			groups = append(groups, b)
		case num == 17 && wt == protowire.VarintType:
			granularity = int64(int32(v))
		case num == 19 && wt == protowire.VarintType:
			latOff = int64(v)
		case num == 20 && wt == protowire.VarintType:
			lonOff = int64(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if granularity <= 0 || granularity > 1e9 {
		return fmt.Errorf("%w: granularity %d", errFormat, granularity)
	}
	if latOff < -1e12 || latOff > 1e12 || lonOff < -1e12 || lonOff > 1e12 {
		return fmt.Errorf("%w: coordinate offset out of range", errFormat)
	}
	c := coordConv{gran: granularity, latOff: latOff, lonOff: lonOff}
	for _, g := range groups {
		err := eachField(g, func(num protowire.Number, wt protowire.Type, _ uint64, b []byte) error {
			if wt != protowire.BytesType {
				return nil
			}
			switch num {
			case 1:
				if h.node != nil {
					return p.plainNode(b, c, h)
				}
			case 2:
				if h.node != nil {
					return p.denseNodes(b, c, h)
				}
			case 3:
				if h.way != nil {
					return p.way(b, h)
				}
			case 4:
				if h.relation != nil {
					return p.relation(b, h)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// coordConv turns stored coordinates into 1e-7 degrees.
type coordConv struct{ gran, latOff, lonOff int64 }

// conv converts; ok is false for coordinates off the globe.
func (c coordConv) conv(lat, lon int64) (int32, int32, bool) {
	lim := int64(1<<60) / c.gran // keeps the products below far from overflow
	if lat < -lim || lat > lim || lon < -lim || lon > lim {
		return 0, 0, false
	}
	la := (c.latOff + c.gran*lat) / 100
	lo := (c.lonOff + c.gran*lon) / 100
	if la < -900_000_000 || la > 900_000_000 || lo < -1_800_000_000 || lo > 1_800_000_000 {
		return 0, 0, false
	}
	return int32(la), int32(lo), true
}

func (p *pbfReader) str(i int64) (string, error) {
	if i < 0 || i >= int64(len(p.strs)) {
		return "", fmt.Errorf("%w: string index %d of %d", errFormat, i, len(p.strs))
	}
	return p.strs[i], nil
}

// kvTags fills p.tags from parallel key and value index lists.
func (p *pbfReader) kvTags(keys, vals []int64) error {
	if len(keys) != len(vals) {
		return fmt.Errorf("%w: %d keys and %d values", errFormat, len(keys), len(vals))
	}
	p.tags = p.tags[:0]
	for i := range keys {
		k, err := p.str(keys[i])
		if err != nil {
			return err
		}
		v, err := p.str(vals[i])
		if err != nil {
			return err
		}
		p.tags = append(p.tags, tag{k, v})
	}
	return nil
}

func (p *pbfReader) plainNode(b []byte, c coordConv, h *handler) error {
	var id, lat, lon int64
	p.keys, p.vals = p.keys[:0], p.vals[:0]
	err := eachField(b, func(num protowire.Number, wt protowire.Type, v uint64, bs []byte) error {
		var err error
		switch num {
		case 1:
			id = protowire.DecodeZigZag(v)
		case 2:
			p.keys, err = appendInts(p.keys, wt, v, bs, false)
		case 3:
			p.vals, err = appendInts(p.vals, wt, v, bs, false)
		case 8:
			lat = protowire.DecodeZigZag(v)
		case 9:
			lon = protowire.DecodeZigZag(v)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := p.kvTags(p.keys, p.vals); err != nil {
		return err
	}
	la, lo, ok := c.conv(lat, lon)
	if !ok {
		return fmt.Errorf("%w: node %d off the globe", errFormat, id)
	}
	return h.node(id, la, lo, p.tags)
}

func (p *pbfReader) denseNodes(b []byte, c coordConv, h *handler) error {
	p.ids, p.lats, p.lons, p.kvs = p.ids[:0], p.lats[:0], p.lons[:0], p.kvs[:0]
	err := eachField(b, func(num protowire.Number, wt protowire.Type, v uint64, bs []byte) error {
		var err error
		switch num {
		case 1:
			p.ids, err = appendInts(p.ids, wt, v, bs, true)
		case 8:
			p.lats, err = appendInts(p.lats, wt, v, bs, true)
		case 9:
			p.lons, err = appendInts(p.lons, wt, v, bs, true)
		case 10:
			p.kvs, err = appendInts(p.kvs, wt, v, bs, false)
		}
		return err
	})
	if err != nil {
		return err
	}
	if len(p.lats) != len(p.ids) || len(p.lons) != len(p.ids) {
		return fmt.Errorf("%w: dense nodes with %d ids, %d lats, %d lons", errFormat, len(p.ids), len(p.lats), len(p.lons))
	}
	var id, lat, lon int64
	kv := 0
	for i := range p.ids {
		id += p.ids[i]
		lat += p.lats[i]
		lon += p.lons[i]
		p.tags = p.tags[:0]
		for kv < len(p.kvs) {
			ki := p.kvs[kv]
			kv++
			if ki == 0 {
				break
			}
			if kv >= len(p.kvs) {
				return fmt.Errorf("%w: dense node key without value", errFormat)
			}
			k, err := p.str(ki)
			if err != nil {
				return err
			}
			val, err := p.str(p.kvs[kv])
			if err != nil {
				return err
			}
			kv++
			p.tags = append(p.tags, tag{k, val})
		}
		la, lo, ok := c.conv(lat, lon)
		if !ok {
			return fmt.Errorf("%w: node %d off the globe", errFormat, id)
		}
		if err := h.node(id, la, lo, p.tags); err != nil {
			return err
		}
	}
	return nil
}

func (p *pbfReader) way(b []byte, h *handler) error {
	var id int64
	p.keys, p.vals, p.refs = p.keys[:0], p.vals[:0], p.refs[:0]
	err := eachField(b, func(num protowire.Number, wt protowire.Type, v uint64, bs []byte) error {
		var err error
		switch num {
		case 1:
			id = int64(v)
		case 2:
			p.keys, err = appendInts(p.keys, wt, v, bs, false)
		case 3:
			p.vals, err = appendInts(p.vals, wt, v, bs, false)
		case 8:
			p.refs, err = appendInts(p.refs, wt, v, bs, true)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := p.kvTags(p.keys, p.vals); err != nil {
		return err
	}
	var ref int64
	for i, d := range p.refs {
		ref += d
		p.refs[i] = ref
	}
	return h.way(id, p.refs, p.tags)
}

func (p *pbfReader) relation(b []byte, h *handler) error {
	var id int64
	p.keys, p.vals, p.roles, p.ids, p.types = p.keys[:0], p.vals[:0], p.roles[:0], p.ids[:0], p.types[:0]
	err := eachField(b, func(num protowire.Number, wt protowire.Type, v uint64, bs []byte) error {
		var err error
		switch num {
		case 1:
			id = int64(v)
		case 2:
			p.keys, err = appendInts(p.keys, wt, v, bs, false)
		case 3:
			p.vals, err = appendInts(p.vals, wt, v, bs, false)
		case 8:
			p.roles, err = appendInts(p.roles, wt, v, bs, false)
		case 9:
			p.ids, err = appendInts(p.ids, wt, v, bs, true)
		case 10:
			p.types, err = appendInts(p.types, wt, v, bs, false)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := p.kvTags(p.keys, p.vals); err != nil {
		return err
	}
	if len(p.roles) != len(p.ids) || len(p.types) != len(p.ids) {
		return fmt.Errorf("%w: relation %d with %d roles, %d members, %d types", errFormat, id, len(p.roles), len(p.ids), len(p.types))
	}
	p.members = p.members[:0]
	var mid int64
	for i := range p.ids {
		mid += p.ids[i]
		role, err := p.str(p.roles[i])
		if err != nil {
			return err
		}
		t := p.types[i]
		if t < 0 || t > 2 {
			return fmt.Errorf("%w: relation %d member type %d", errFormat, id, t)
		}
		p.members = append(p.members, member{typ: int8(t), id: mid, role: role})
	}
	return h.relation(id, p.members, p.tags)
}

// eachField calls fn for every field of the protobuf message b: v is the
// value of varint and fixed fields, bs the content of length-delimited ones.
func eachField(b []byte, fn func(num protowire.Number, wt protowire.Type, v uint64, bs []byte) error) error {
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", errFormat, protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch wt {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, wt, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", errFormat, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, wt, v, bs); err != nil {
			return err
		}
	}
	return nil
}

// appendInts appends a repeated integer field given packed (bs) or as a
// single varint (v); zigzag selects sint64 decoding.
func appendInts(dst []int64, wt protowire.Type, v uint64, bs []byte, zigzag bool) ([]int64, error) {
	dec := func(x uint64) int64 {
		if zigzag {
			return protowire.DecodeZigZag(x)
		}
		return int64(x)
	}
	switch wt {
	case protowire.VarintType:
		return append(dst, dec(v)), nil
	case protowire.BytesType:
		for len(bs) > 0 {
			x, n := protowire.ConsumeVarint(bs)
			if n < 0 {
				return dst, fmt.Errorf("%w: packed varint: %v", errFormat, protowire.ParseError(n))
			}
			bs = bs[n:]
			dst = append(dst, dec(x))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("%w: integer field of wire type %d", errFormat, wt)
}

// grow returns b resized to n bytes, reallocating when needed.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// degrees converts 1e-7 degrees to degrees.
func degrees(v int32) float64 { return float64(v) / 1e7 }
