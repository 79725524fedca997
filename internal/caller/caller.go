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
	c, _ := ctx.Value(ctxKey{}).(Caller)
	return c
}
