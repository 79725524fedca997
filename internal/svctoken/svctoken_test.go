package svctoken

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestLifecycle(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := New(db)
		tok, secret, err := s.Create(ctx, "  deploy ")
		if err != nil {
			t.Fatal(err)
		}
		if tok.Name != "deploy" || !strings.HasPrefix(secret, Prefix) || len(secret) != len(Prefix)+43 {
			t.Errorf("created %+v %q", tok, secret)
		}
		anon, secret2, err := s.Create(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(anon.Name, "token-") || secret2 == secret {
			t.Errorf("second token %+v", anon)
		}
		if _, _, err := s.Create(ctx, strings.Repeat("x", MaxNameBytes+1)); !errors.Is(err, ErrInvalid) {
			t.Errorf("long name: %v", err)
		}
		// The secret is not stored, only its hash.
		recs, _ := db.ServiceTokens(ctx)
		for _, r := range recs {
			if r.Hash == secret || r.Hash == secret2 || strings.Contains(r.Name, secret) {
				t.Errorf("secret stored in %+v", r)
			}
		}
		for _, tc := range []struct {
			secret string
			id     string
			ok     bool
		}{
			{secret, tok.ID, true},
			{secret2, anon.ID, true},
			{secret + "x", "", false},
			{secret[:len(secret)-1], "", false},
			{strings.TrimPrefix(secret, Prefix), "", false},
			{"", "", false},
			{Prefix + strings.Repeat("a", 500), "", false},
		} {
			id, ok, err := s.Check(ctx, tc.secret)
			if err != nil || id != tc.id || ok != tc.ok {
				t.Errorf("Check(%.12q...) = %q %v %v, want %q %v", tc.secret, id, ok, err, tc.id, tc.ok)
			}
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 2 {
			t.Fatalf("list %+v %v", list, err)
		}
		if err := s.Revoke(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Check(ctx, secret); ok {
			t.Error("revoked token still accepted")
		}
		if err := s.Revoke(ctx, tok.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoke twice: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 || list[0].ID != anon.ID {
			t.Errorf("list after revoke %+v", list)
		}
	})
}
