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
