// Package cursor encodes the page cursors of the account service API's
// lists: the position after the last item of a page, as the item's
// sequence number and id (the list's order), in unpadded base64url. A
// position, unlike an offset, does not move when items before it are
// inserted or deleted.
package cursor

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxLen bounds an encoded cursor.
const MaxLen = 200

// ErrInvalid is returned for a cursor this package did not make.
var ErrInvalid = errors.New("invalid cursor")

// Position is where a page starts: after the item (Seq, ID) in the order
// of (seq, id). The zero Position is the beginning.
type Position struct {
	Seq int64
	ID  string
}

// Encode returns the cursor of p.
func Encode(p Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Seq, 10) + ":" + p.ID))
}

// Decode reads a cursor made by Encode. Padding ('=') is tolerated; an
// empty cursor is the beginning.
func Decode(s string) (Position, error) {
	if s == "" {
		return Position{}, nil
	}
	if len(s) > MaxLen {
		return Position{}, fmt.Errorf("%w: longer than %d characters", ErrInvalid, MaxLen)
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return Position{}, fmt.Errorf("%w: not base64url", ErrInvalid)
	}
	seqText, id, ok := strings.Cut(string(b), ":")
	if !ok || !plainID(id) {
		return Position{}, fmt.Errorf("%w: not a position", ErrInvalid)
	}
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if err != nil || seq < 0 || strconv.FormatInt(seq, 10) != seqText {
		return Position{}, fmt.Errorf("%w: not a position", ErrInvalid)
	}
	return Position{Seq: seq, ID: id}, nil
}

// plainID accepts the ids of the lists: UUIDs and other short runs of
// letters, digits, '-' and '_'.
func plainID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// After reports whether the item (seq, id) comes after p.
func (p Position) After(seq int64, id string) bool {
	return seq > p.Seq || seq == p.Seq && id > p.ID
}
