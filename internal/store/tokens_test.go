package store

import (
	"context"
	"errors"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestServiceTokens(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := mustOpen(t, dsn)
		a, err := db.CreateServiceToken(ctx, ServiceToken{ID: "t1", Name: "ci", Hash: "h1"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Created == "" || a.Revoked != "" {
			t.Errorf("created %+v", a)
		}
		if _, err := db.CreateServiceToken(ctx, ServiceToken{ID: "t2", Name: "dup", Hash: "h1"}); !errors.Is(err, ErrConflict) {
			t.Errorf("duplicate hash: %v, want ErrConflict", err)
		}
		if _, err := db.CreateServiceToken(ctx, ServiceToken{ID: "t3", Name: "other", Hash: "h3"}); err != nil {
			t.Fatal(err)
		}
		got, err := db.ServiceTokenByHash(ctx, "h1")
		if err != nil || got.ID != "t1" || got.Name != "ci" {
			t.Errorf("by hash: %+v, %v", got, err)
		}
		if _, err := db.ServiceTokenByHash(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown hash: %v", err)
		}
		list, err := db.ServiceTokens(ctx)
		if err != nil || len(list) != 2 {
			t.Fatalf("list: %+v, %v", list, err)
		}
		if err := db.RevokeServiceToken(ctx, "t1"); err != nil {
			t.Fatal(err)
		}
		if err := db.RevokeServiceToken(ctx, "t1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second revoke: %v", err)
		}
		if err := db.RevokeServiceToken(ctx, "zz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown revoke: %v", err)
		}
		if _, err := db.ServiceTokenByHash(ctx, "h1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoked token still found: %v", err)
		}
		list, err = db.ServiceTokens(ctx)
		if err != nil || len(list) != 1 || list[0].ID != "t3" {
			t.Errorf("list after revoke: %+v, %v", list, err)
		}
	})
}

// mustOpen opens the state database at dsn, closed when the test ends.
func mustOpen(t *testing.T, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
