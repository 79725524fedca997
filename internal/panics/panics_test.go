package panics

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestCarrier(t *testing.T) {
	var c Carrier
	var wg sync.WaitGroup
	ran := 0
	var mu sync.Mutex
	for i := range 4 {
		c.Go(&wg, func() {
			mu.Lock()
			ran++
			mu.Unlock()
			if i == 2 {
				panic("boom in worker")
			}
		})
	}
	wg.Wait()
	if ran != 4 {
		t.Fatalf("%d goroutines ran, want 4", ran)
	}
	got := func() (p *Recovered) {
		defer func() { p = Of(recover()) }()
		c.Rethrow()
		return nil
	}()
	if got == nil {
		t.Fatal("Rethrow raised nothing")
	}
	if got.Value != "boom in worker" {
		t.Errorf("value %v", got.Value)
	}
	// The stack is the worker's, where the panic happened.
	if !strings.Contains(string(got.Stack), "TestCarrier.func") {
		t.Errorf("the stack does not show the worker:\n%s", got.Stack)
	}
}

func TestNoPanic(t *testing.T) {
	var c Carrier
	var wg sync.WaitGroup
	c.Go(&wg, func() {})
	wg.Wait()
	c.Rethrow() // must not panic
	if Of(nil) != nil {
		t.Error("Of(nil) is not nil")
	}
}

func TestUnwrap(t *testing.T) {
	base := errors.New("index out of range")
	p := Of(base)
	if !errors.Is(p, base) {
		t.Error("a panic with an error does not unwrap to it")
	}
	if Of("text").Unwrap() != nil {
		t.Error("a panic with a string unwraps to an error")
	}
}
