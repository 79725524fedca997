package geocode

type interner struct {
	ids  map[string]uint32
	blob []byte
	off  []uint32
}

func newInterner() *interner { return &interner{ids: map[string]uint32{}, off: []uint32{0}} }

func (in *interner) id(s string) uint32 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := uint32(len(in.off) - 1)
	in.blob = append(in.blob, s...)
	in.off = append(in.off, uint32(len(in.blob)))
	in.ids[s] = id
	return id
}

func packLang(l string) uint16 {
	if len(l) != 2 {
		return 0
	}
	return uint16(l[0])<<8 | uint16(l[1])
}

func unpackLang(v uint16) string {
	if v == 0 {
		return ""
	}
	return string([]byte{byte(v >> 8), byte(v)})
}

// hashString is 64-bit FNV-1a (stable across processes and builds).
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
