package geocode

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"unsafe"
)

// File layout: a 32-byte header (magic, version, section count, offset of the
// section table), the sections (each 8-byte aligned, raw little-endian
// arrays), then the section table (per section: 24-byte name, offset, length).
// Open maps the file and views the arrays in place, so loading is constant
// time apart from validation.
const (
	fileMagic     = "TSRGEO\x00\x01"
	formatVersion = 8
	headerSize    = 32
	sectionName   = 24
	sectionEntry  = sectionName + 16
	maxSections   = 256
)

// columns holds every array of an index; the builder fills it and writes it,
// Open views a mapped file through it.
type columns struct {
	Meta []byte // JSON metadata (attribution, sources, build time)

	StrBlob []byte
	StrOff  []uint32 // S+1

	// Features, ordered by importance (best first).
	FType      []uint8
	FNum       []uint64
	FName      []uint32 // string id of the default name
	FLon, FLat []int32  // 1e-7 degrees
	FBBox      []int32  // 4 per feature: w, s, e, n in 1e-7 degrees
	FCountry   []int32  // feature index of the country, -1 none
	FRegion    []int32
	FSubregion []int32
	FLocality  []int32  // parent locality of smaller features, -1 none
	FExtraOff  []uint64 // N+1 offsets into ExtraBlob
	ExtraBlob  []byte   // per feature: JSON of featureExtra, empty when none
	FCC        []uint16 // country code letters (hi, lo), 0 none
	FPop       []uint32
	FImp       []float32
	FRef       []uint32 // string id of the external reference
	FFlags     []uint32 // designation (bits 0-3), kind (4-7), source (8-11), capital level (12-15)
	FGeomOff   []uint64 // N+1 offsets into GeomBlob
	GeomBlob   []byte
	FLangStart []uint32 // N+1 into LangCode/LangName
	LangCode   []uint16
	LangName   []uint32 // string ids
	FNameStart []uint32 // N+1 into the name entries

	// Name entries (searchable names), grouped by feature in feature order.
	NFeat      []uint32
	NStr       []uint32 // string id of the name as written
	NLangStart []uint32 // M+1 into NLangList
	NLangList  []uint16 // languages a name is tagged with (sorted)
	NFlags     []uint8  // nameOfficial: the default name or its ASCII form
	NTokStart  []uint32 // M+1 into NToks
	NToks      []uint32 // token ids

	// Token dictionary, sorted bytewise.
	TokOff    []uint32 // T+1 into TokBlob
	TokBlob   []byte
	PostStart []uint32 // T+1 into Postings
	Postings  []uint32 // name ids, ascending (= importance order)

	// Deletion-neighbourhood index for fuzzy matching.
	DelHash []uint64 // sorted
	DelTok  []uint32

	// Spatial grid of point features (cell = gridCell degrees).
	GridStart []uint32 // cells+1
	GridItems []uint32

	// Sparse fine grid (cell = fineCell degrees) of the dense point types:
	// cell numbers sorted, with their features.
	FineCell []uint32
	FineFeat []uint32

	// Grid of area features with polygons (cell = areaCell degrees): each
	// feature is listed in every cell its bbox overlaps. Countries are not
	// in it (they have their own list).
	AreaStart []uint32 // areaW*areaH+1
	AreaItems []uint32

	// Lookup of "<type>.<num>" ids.
	IDKey  []uint64 // type<<56 | num, sorted
	IDFeat []uint32
}

type sectionRef struct {
	name string
	ptr  any // pointer to a slice field of columns
}

func (c *columns) sections() []sectionRef {
	return []sectionRef{
		{"meta", &c.Meta}, {"strblob", &c.StrBlob}, {"stroff", &c.StrOff},
		{"ftype", &c.FType}, {"fnum", &c.FNum}, {"fname", &c.FName}, {"flon", &c.FLon}, {"flat", &c.FLat},
		{"fbbox", &c.FBBox}, {"fcountry", &c.FCountry}, {"fregion", &c.FRegion}, {"fsubregion", &c.FSubregion}, {"flocality", &c.FLocality},
		{"fextraoff", &c.FExtraOff}, {"extrablob", &c.ExtraBlob},
		{"fcc", &c.FCC}, {"fpop", &c.FPop}, {"fimp", &c.FImp}, {"fflags", &c.FFlags}, {"fref", &c.FRef},
		{"fgeomoff", &c.FGeomOff}, {"geomblob", &c.GeomBlob}, {"flangstart", &c.FLangStart},
		{"langcode", &c.LangCode}, {"langname", &c.LangName}, {"fnamestart", &c.FNameStart},
		{"nfeat", &c.NFeat}, {"nstr", &c.NStr}, {"nlangstart", &c.NLangStart}, {"nlanglist", &c.NLangList}, {"nflags", &c.NFlags}, {"ntokstart", &c.NTokStart}, {"ntoks", &c.NToks},
		{"tokoff", &c.TokOff}, {"tokblob", &c.TokBlob}, {"poststart", &c.PostStart}, {"postings", &c.Postings},
		{"delhash", &c.DelHash}, {"deltok", &c.DelTok},
		{"gridstart", &c.GridStart}, {"griditems", &c.GridItems},
		{"finecell", &c.FineCell}, {"finefeat", &c.FineFeat},
		{"areastart", &c.AreaStart}, {"areaitems", &c.AreaItems},
		{"idkey", &c.IDKey}, {"idfeat", &c.IDFeat},
	}
}

func isLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// asBytes views a slice of fixed-size numbers as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// fromBytes views b as a slice of T; b must be aligned and a multiple of T's size.
func fromBytes[T any](b []byte) ([]T, error) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("length %d not a multiple of %d", len(b), size)
	}
	if len(b) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%uintptr(unsafe.Alignof(z)) != 0 {
		return nil, errors.New("misaligned section")
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), nil
}

func sliceBytes(ptr any) []byte {
	switch p := ptr.(type) {
	case *[]byte:
		return *p
	case *[]uint16:
		return asBytes(*p)
	case *[]uint32:
		return asBytes(*p)
	case *[]int32:
		return asBytes(*p)
	case *[]uint64:
		return asBytes(*p)
	case *[]float32:
		return asBytes(*p)
	}
	panic(fmt.Sprintf("geocode: unsupported column type %T", ptr))
}

func setSlice(ptr any, b []byte) error {
	var err error
	switch p := ptr.(type) {
	case *[]byte:
		*p = b
	case *[]uint16:
		*p, err = fromBytes[uint16](b)
	case *[]uint32:
		*p, err = fromBytes[uint32](b)
	case *[]int32:
		*p, err = fromBytes[int32](b)
	case *[]uint64:
		*p, err = fromBytes[uint64](b)
	case *[]float32:
		*p, err = fromBytes[float32](b)
	default:
		err = fmt.Errorf("unsupported column type %T", ptr)
	}
	return err
}

// write stores the columns in path (through a temporary file renamed into place).
func (c *columns) write(path string) (err error) {
	if !isLittleEndian() {
		return errors.New("geocode: index files are little-endian; this machine is not")
	}
	tmp, err := os.CreateTemp(dirOf(path), ".geocode-*.tmp")
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	secs := c.sections()
	table := make([]byte, 0, len(secs)*sectionEntry)
	off := uint64(headerSize)
	if _, err := w.Write(make([]byte, headerSize)); err != nil {
		return err
	}
	for _, s := range secs {
		b := sliceBytes(s.ptr)
		var name [sectionName]byte
		copy(name[:], s.name)
		table = append(table, name[:]...)
		table = binary.LittleEndian.AppendUint64(table, off)
		table = binary.LittleEndian.AppendUint64(table, uint64(len(b)))
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
		off += uint64(len(b))
		if pad := (8 - off%8) % 8; pad > 0 {
			w.Write(make([]byte, pad))
			off += pad
		}
	}
	if _, err := w.Write(table); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	hdr := make([]byte, headerSize)
	copy(hdr, fileMagic)
	binary.LittleEndian.PutUint32(hdr[8:], formatVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(len(secs)))
	binary.LittleEndian.PutUint64(hdr[16:], off)
	if _, err := tmp.WriteAt(hdr, 0); err != nil {
		return fmt.Errorf("write index header: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename index: %w", err)
	}
	return nil
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i+1]
		}
	}
	return "."
}

// parse views the sections of a mapped file.
func (c *columns) parse(data []byte) error {
	if !isLittleEndian() {
		return errors.New("index files are little-endian; this machine is not")
	}
	if len(data) < headerSize || string(data[:8]) != fileMagic {
		return errors.New("not a geocoding index (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != formatVersion {
		return fmt.Errorf("index format version %d, want %d (rebuild the index)", v, formatVersion)
	}
	n := binary.LittleEndian.Uint32(data[12:])
	toff := binary.LittleEndian.Uint64(data[16:])
	if n > maxSections || toff > uint64(len(data)) || uint64(len(data))-toff < uint64(n)*sectionEntry {
		return errors.New("corrupt section table")
	}
	found := map[string][]byte{}
	for i := uint64(0); i < uint64(n); i++ {
		e := data[toff+i*sectionEntry:]
		name := string(trimZero(e[:sectionName]))
		off := binary.LittleEndian.Uint64(e[sectionName:])
		l := binary.LittleEndian.Uint64(e[sectionName+8:])
		if off > uint64(len(data)) || l > uint64(len(data))-off {
			return fmt.Errorf("section %q out of range", name)
		}
		found[name] = data[off : off+l : off+l]
	}
	for _, s := range c.sections() {
		b, ok := found[s.name]
		if !ok {
			return fmt.Errorf("section %q missing", s.name)
		}
		if err := setSlice(s.ptr, b); err != nil {
			return fmt.Errorf("section %q: %w", s.name, err)
		}
	}
	return nil
}

func trimZero(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// unsafeString views b as a string without copying; b must stay immutable.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// readWhole reads an index file into memory, 8-byte aligned.
func readWhole(f *os.File, size int64) ([]byte, func() error, error) {
	words := make([]uint64, (size+7)/8)
	data := asBytes(words)[:size]
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
