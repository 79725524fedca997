package sources

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxMOStrings bounds the number of strings of one catalog.
const maxMOStrings = 1 << 20

// ParseMO decodes a GNU gettext binary catalog (.mo) into msgid -> msgstr.
// Plural forms keep their first form; context-qualified ids keep the context.
func ParseMO(data []byte) (map[string]string, error) {
	if len(data) < 28 {
		return nil, errors.New("mo: file too short")
	}
	var bo binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0x950412de:
		bo = binary.LittleEndian
	case 0xde120495:
		bo = binary.BigEndian
	default:
		return nil, errors.New("mo: bad magic number")
	}
	n := bo.Uint32(data[8:])
	orig := bo.Uint32(data[12:])
	trans := bo.Uint32(data[16:])
	if n > maxMOStrings {
		return nil, fmt.Errorf("mo: %d strings exceeds %d", n, maxMOStrings)
	}
	str := func(table uint32, i uint32) (string, error) {
		off := uint64(table) + uint64(i)*8
		if off+8 > uint64(len(data)) {
			return "", errors.New("mo: string table out of range")
		}
		l := uint64(bo.Uint32(data[off:]))
		p := uint64(bo.Uint32(data[off+4:]))
		if p+l > uint64(len(data)) {
			return "", errors.New("mo: string out of range")
		}
		s := data[p : p+l]
		for j, c := range s { // first plural form only
			if c == 0 {
				s = s[:j]
				break
			}
		}
		return string(s), nil
	}
	out := make(map[string]string, n)
	for i := uint32(0); i < n; i++ {
		k, err := str(orig, i)
		if err != nil {
			return nil, err
		}
		v, err := str(trans, i)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}
