package caller

import (
	"context"
	"testing"
)

func TestCallerRoundTrip(t *testing.T) {
	ctx := context.Background()
	if got := From(ctx); got != (Caller{}) {
		t.Errorf("From(empty) = %+v, want zero", got)
	}
	want := Caller{KeyID: "k1", KeyToken: "tok", TokenID: "t1"}
	if got := From(With(ctx, want)); got != want {
		t.Errorf("From(With(c)) = %+v, want %+v", got, want)
	}
}

type otherKey struct{}

func TestSlot(t *testing.T) {
	base := context.WithValue(context.Background(), otherKey{}, "v")
	if Set(base, Caller{KeyID: "x"}) {
		t.Error("Set on a context without a slot reported true")
	}
	ctx := Attach(base)
	if got := From(ctx); got != (Caller{}) {
		t.Errorf("empty slot: %+v", got)
	}
	want := Caller{KeyID: "k", KeyToken: "t"}
	if !Set(ctx, want) {
		t.Fatal("Set on an attached context reported false")
	}
	if !SetKey(ctx, "k2", "t2") || From(ctx) != (Caller{KeyID: "k2", KeyToken: "t2"}) {
		t.Errorf("SetKey: %+v", From(ctx))
	}
	Set(ctx, want)
	// Contexts made on top see the slot's caller; other values pass through.
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	if got := From(child); got != want {
		t.Errorf("From(child) = %+v, want %+v", got, want)
	}
	if child.Value(otherKey{}) != "v" {
		t.Error("other values lost")
	}
	// A caller set with With above the slot wins, and Set then reports
	// false (the nearer value is not a slot).
	over := With(ctx, Caller{TokenID: "tt"})
	if got := From(over); got.TokenID != "tt" || got.KeyID != "" {
		t.Errorf("From(With over slot) = %+v", got)
	}
	if Set(over, want) || SetKey(over, "a", "b") {
		t.Error("Set through a With value reported true")
	}
	if SetKey(base, "a", "b") {
		t.Error("SetKey without a slot reported true")
	}
}

type idKey int

func TestAttachValue(t *testing.T) {
	base := context.WithValue(context.Background(), otherKey{}, "v")
	ctx := AttachValue(base, idKey(1), "req-1")
	for _, c := range []struct {
		key  any
		want any
	}{
		{idKey(1), "req-1"},
		{idKey(2), nil},       // another key of the same type
		{otherKey{}, "v"},     // the parent's values pass through
		{struct{}{}, nil},     // unknown key
		{"idKey(1)", nil},     // same-looking key of another type
		{ctxKey{}, &Caller{}}, // the slot
	} {
		got := ctx.Value(c.key)
		if p, ok := got.(*Caller); ok {
			if *p != *c.want.(*Caller) {
				t.Errorf("Value(%v) = %+v, want %+v", c.key, *p, c.want)
			}
			continue
		}
		if got != c.want {
			t.Errorf("Value(%#v) = %v, want %v", c.key, got, c.want)
		}
	}
	// The slot works as Attach's.
	want := Caller{KeyID: "k", KeyToken: "t"}
	if !Set(ctx, want) || From(ctx) != want {
		t.Errorf("Set on an AttachValue context: %+v", From(ctx))
	}
	// Keys context.WithValue refuses are refused.
	for _, bad := range []any{nil, []string{"x"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AttachValue with key %#v did not panic", bad)
				}
			}()
			AttachValue(base, bad, 1)
		}()
	}
}
