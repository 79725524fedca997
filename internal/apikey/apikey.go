// Package apikey holds the API keys of the public API (spec 002
// "Authentication", spec 001 B "APIKeySettings"): their settings and how
// they are checked, their restrictions (allowed origins, a user-agent
// substring), the in-memory snapshot that checks keys without touching the
// database, generated names and tokens, and the keys' lifecycle in the
// state database. It knows nothing of HTTP.
package apikey

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/store"
)

// Errors of the key service and of a key check.
var (
	ErrNotFound = errors.New("no such API key")
	ErrInvalid  = errors.New("invalid API key settings")

	// A request refused by Check.
	ErrMissing   = errors.New("an API key is required: add key=<API_KEY> to the URL")
	ErrUnknown   = errors.New("invalid API key")
	ErrOrigin    = errors.New("this API key does not allow requests from this origin")
	ErrUserAgent = errors.New("this API key does not allow this user agent")
)

// Key is an API key as the account API shows it.
type Key struct {
	ID          string   `json:"id"`
	Token       string   `json:"token"`
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	UserAgent   *string  `json:"user_agent"`
	Origins     []string `json:"origins"`
	Created     string   `json:"created"`
	Changed     string   `json:"changed"`

	seq int64
}

// GeneratedName is the name a key gets when none is given: "key-" and the
// first 8 characters of its id.
func GeneratedName(id string) string {
	if len(id) > 8 {
		id = id[:8]
	}
	return "key-" + id
}

// NewToken returns a new key: 24 random bytes in unpadded base64url (32
// characters, safe in URLs without escaping).
func NewToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// checker is a key compiled for checks.
type checker struct {
	key          *Key
	rules        []rule
	allowUnknown bool
	userAgent    string
	// last is the origin (or referer) most recently allowed: a page's
	// requests repeat it, and comparing it is cheaper than parsing it.
	last atomic.Pointer[string]
}

func compile(k *Key) *checker {
	c := &checker{key: k}
	for _, o := range k.Origins {
		if o == Unknown {
			c.allowUnknown = true
			continue
		}
		if r, err := parseRule(o); err == nil { // stored entries were checked when set
			c.rules = append(c.rules, r)
		}
	}
	if k.UserAgent != nil {
		c.userAgent = *k.UserAgent
	}
	return c
}

// allows applies the key's restrictions to a request's Origin, Referer and
// User-Agent headers.
func (c *checker) allows(origin, referer, userAgent string) error {
	if len(c.rules) > 0 || c.allowUnknown {
		if err := c.allowsOrigin(origin, referer); err != nil {
			return err
		}
	}
	if c.userAgent != "" && !strings.Contains(userAgent, c.userAgent) {
		return ErrUserAgent
	}
	return nil
}

// allowsOrigin applies the origin rules, remembering the last origin they
// allowed.
func (c *checker) allowsOrigin(origin, referer string) error {
	from := origin
	if from == "" || from == "null" {
		from = referer
	}
	if from != "" {
		if last := c.last.Load(); last != nil && *last == from {
			return nil
		}
	}
	h, known := ParseRequestOrigin(origin, referer)
	if !known {
		if !c.allowUnknown {
			return ErrOrigin
		}
		return nil
	}
	if !c.matchAny(h) {
		return ErrOrigin
	}
	remembered := new(string) // only here: taking from's address would allocate it on every call
	*remembered = from
	c.last.Store(remembered)
	return nil
}

func (c *checker) matchAny(h Host) bool {
	for _, r := range c.rules {
		if r.matches(h) {
			return true
		}
	}
	return false
}

func fromRecord(r store.APIKey) *Key {
	return &Key{ID: r.ID, Token: r.Token, Name: r.Name, Description: r.Description, UserAgent: r.UserAgent,
		Origins: r.Origins, Created: r.Created, Changed: r.Changed, seq: r.Seq}
}

func (k *Key) record() store.APIKey {
	return store.APIKey{ID: k.ID, Token: k.Token, Name: k.Name, Description: k.Description, UserAgent: k.UserAgent,
		Origins: k.Origins, Created: k.Created, Changed: k.Changed, Seq: k.seq}
}
