// Package caller carries who made a request through its context: the API
// key of a public request, the service token of an account request. The
// key check sets it; usage counting and URL writing read it.
package caller

import (
	"context"
	"reflect"
)

// Caller is who made a request. Empty fields mean none.
type Caller struct {
	KeyID    string // the id of the API key that was checked
	KeyToken string // the key itself, written back into URLs of documents
	TokenID  string // the id of the service token of an account request
}

type ctxKey struct{}

// With returns a context that carries c.
func With(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// From returns the caller a context carries (the zero Caller when none).
func From(ctx context.Context) Caller {
	switch v := ctx.Value(ctxKey{}).(type) {
	case Caller:
		return v
	case *Caller:
		return *v
	}
	return Caller{}
}

// slotCtx is a context with a caller filled in after it was made, and
// optionally one more value (see AttachValue).
type slotCtx struct {
	context.Context
	c        Caller
	key, val any
}

func (s *slotCtx) Value(key any) any {
	if key == (ctxKey{}) {
		return &s.c
	}
	if s.key != nil && key == s.key {
		return s.val
	}
	return s.Context.Value(key)
}

// Attach returns a context with an empty slot for the caller, which Set
// fills later without a new context (and so without a new request): the
// key check on every tile request then allocates nothing. The outermost
// layer of the server attaches it; the slot belongs to the request's
// goroutine (set before the handler runs, read during and after it).
func Attach(ctx context.Context) context.Context { return &slotCtx{Context: ctx} }

// AttachValue is Attach and context.WithValue(ctx, key, val) in one
// context (one allocation instead of two on every request). The key must
// be comparable and not nil, as for context.WithValue.
func AttachValue(ctx context.Context, key, val any) context.Context {
	if key == nil || !reflect.TypeOf(key).Comparable() {
		panic("caller: AttachValue with a nil or incomparable key")
	}
	return &slotCtx{Context: ctx, key: key, val: val}
}

// Set puts c in the slot of ctx (see Attach) and reports whether ctx had
// one; without one, use With.
func Set(ctx context.Context, c Caller) bool {
	p, ok := ctx.Value(ctxKey{}).(*Caller)
	if ok {
		*p = c
	}
	return ok
}

// SetKey puts an API key's id and token in the slot of ctx (see Attach),
// keeping its other fields, and reports whether ctx had one.
func SetKey(ctx context.Context, id, token string) bool {
	p, ok := ctx.Value(ctxKey{}).(*Caller)
	if ok {
		p.KeyID, p.KeyToken = id, token
	}
	return ok
}
