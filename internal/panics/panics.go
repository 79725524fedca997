// Package panics carries a panic out of a goroutine to the goroutine that
// waits for it, so that one recover there (a render worker's, a request
// handler's) covers the work it fanned out: a panic in a helper goroutine
// would otherwise end the process.
package panics

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Recovered is a panic caught in a goroutine, with the stack where it
// happened. It is an error so that a recover may return it as one.
type Recovered struct {
	Value any
	Stack []byte
}

func (r *Recovered) Error() string { return fmt.Sprintf("panic: %v", r.Value) }

// Unwrap returns the panic's value when it is an error.
func (r *Recovered) Unwrap() error {
	if err, ok := r.Value.(error); ok {
		return err
	}
	return nil
}

// Of turns a value returned by recover into a Recovered, keeping the
// stack of one that was carried (From a Carrier) and taking the current
// one otherwise. It returns nil for nil.
func Of(v any) *Recovered {
	switch p := v.(type) {
	case nil:
		return nil
	case *Recovered:
		return p
	}
	return &Recovered{Value: v, Stack: debug.Stack()}
}

// A Carrier keeps the first panic of the goroutines that defer its Catch,
// for Rethrow to raise again in the goroutine that waited for them. The
// zero Carrier is ready to use.
type Carrier struct {
	mu sync.Mutex
	p  *Recovered
}

// Catch recovers a panic of the goroutine; it must be deferred directly:
//
//	go func() { defer c.Catch(); work() }()
func (c *Carrier) Catch() {
	if v := recover(); v != nil {
		c.keep(Of(v))
	}
}

func (c *Carrier) keep(p *Recovered) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil {
		c.p = p
	}
}

// Rethrow panics with the first panic caught, if any: call it after the
// goroutines have ended.
func (c *Carrier) Rethrow() {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p != nil {
		panic(p)
	}
}

// Go runs fn on a goroutine counted by wg whose panic, if any, c keeps.
func (c *Carrier) Go(wg *sync.WaitGroup, fn func()) {
	wg.Go(func() {
		defer c.Catch()
		fn()
	})
}
