package apikey

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of a key's settings.
const (
	MaxNameBytes        = 200
	MaxDescriptionBytes = 2000
	MaxUserAgentBytes   = 512
	MaxOrigins          = 100
)

// Field is a settings field that tells absent from null: Set when the
// field was given, Null when it was given as null.
type Field[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON reads the field's value or null.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if string(b) == "null" {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// Value returns a given field's value.
func Value[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

// Settings are the settings of a key (APIKeySettings of spec 001 B), all
// optional. On a change, an absent field keeps its value and null clears
// it (a cleared name is generated again).
type Settings struct {
	Name        Field[string]   `json:"name"`
	Description Field[string]   `json:"description"`
	Origins     Field[[]string] `json:"origins"`
	UserAgent   Field[string]   `json:"user_agent"`
}

// apply checks s and writes it over k (whose ID is set), normalising the
// origins (lower case, no scheme, duplicates dropped).
func (s Settings) apply(k *Key) error {
	if s.Name.Set {
		name := strings.TrimSpace(s.Name.Value)
		if err := text("name", name, MaxNameBytes); err != nil {
			return err
		}
		k.Name = name
	}
	if k.Name == "" {
		k.Name = GeneratedName(k.ID)
	}
	if s.Description.Set {
		k.Description = nil
		if !s.Description.Null {
			if !utf8.ValidString(s.Description.Value) || len(s.Description.Value) > MaxDescriptionBytes {
				return fmt.Errorf("%w: description: at most %d bytes of UTF-8", ErrInvalid, MaxDescriptionBytes)
			}
			d := s.Description.Value
			k.Description = &d
		}
	}
	if s.UserAgent.Set {
		k.UserAgent = nil
		if !s.UserAgent.Null {
			if err := text("user_agent", s.UserAgent.Value, MaxUserAgentBytes); err != nil {
				return err
			}
			ua := s.UserAgent.Value
			k.UserAgent = &ua
		}
	}
	if s.Origins.Set {
		if len(s.Origins.Value) > MaxOrigins {
			return fmt.Errorf("%w: origins: at most %d entries", ErrInvalid, MaxOrigins)
		}
		out := []string{}
		seen := map[string]bool{}
		for _, o := range s.Origins.Value {
			canon := Unknown
			if strings.TrimSpace(o) != Unknown {
				r, err := parseRule(o)
				if err != nil {
					return fmt.Errorf("%w: %v", ErrInvalid, err)
				}
				canon = r.String()
			}
			if !seen[canon] {
				seen[canon] = true
				out = append(out, canon)
			}
		}
		k.Origins = out
	}
	if k.Origins == nil {
		k.Origins = []string{}
	}
	return nil
}

// text checks a one-line text field: UTF-8, no control characters, at
// most max bytes.
func text(field, s string, max int) error {
	if !utf8.ValidString(s) || len(s) > max {
		return fmt.Errorf("%w: %s: at most %d bytes of UTF-8", ErrInvalid, field, max)
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%w: %s: control characters are not allowed", ErrInvalid, field)
		}
	}
	return nil
}
