package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

// TestPurgeIngests: only the records of the kind, in the states given and
// changed before the cutoff, are deleted, and their ids returned.
func TestPurgeIngests(t *testing.T) { pgtest.EachDatabase(t, testPurgeIngests) }

func testPurgeIngests(t *testing.T, dsn string) {
	ctx := context.Background()
	db := mustOpen(t, dsn)
	for _, in := range []Ingest{
		{ID: "a", State: IngestCompleted, Kind: KindDataset},
		{ID: "b", State: IngestCanceled, Kind: KindDataset},
		{ID: "c", State: IngestUpload, Kind: KindDataset},
		{ID: "d", State: IngestCompleted, Kind: KindTileset},
	} {
		in.DocumentID, in.Filename, in.Size = "x", "f.mbtiles", 1
		if _, err := db.CreateIngest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	states := []string{IngestCompleted, IngestCanceled, IngestFailed}
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	if ids, err := db.PurgeIngests(ctx, KindDataset, states, past); err != nil || len(ids) != 0 {
		t.Fatalf("purged records changed after the cutoff: %v %v", ids, err)
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	ids, err := db.PurgeIngests(ctx, KindDataset, states, future)
	slices.Sort(ids)
	if err != nil || !slices.Equal(ids, []string{"a", "b"}) {
		t.Fatalf("purged %v %v, want [a b]", ids, err)
	}
	for id, want := range map[string]bool{"a": false, "b": false, "c": true, "d": true} {
		if _, err := db.Ingest(ctx, id); (err == nil) != want {
			t.Errorf("%s: %v, want kept %v", id, err, want)
		}
	}
}
