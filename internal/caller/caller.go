// Package caller carries who made a request through its context: the API
// key of a public request, the service token of an account request. The
// key check sets it; usage counting and URL writing read it.
package caller

import "context"

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

// slotCtx is a context with a caller filled in after it was made.
type slotCtx struct {
	context.Context
	c Caller
}

func (s *slotCtx) Value(key any) any {
	if key == (ctxKey{}) {
		return &s.c
	}
	return s.Context.Value(key)
}

// Attach returns a context with an empty slot for the caller, which Set
// fills later without a new context (and so without a new request): the
// key check on every tile request then allocates nothing. The outermost
// layer of the server attaches it; the slot belongs to the request's
// goroutine (set before the handler runs, read during and after it).
func Attach(ctx context.Context) context.Context { return &slotCtx{Context: ctx} }

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
