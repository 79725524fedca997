package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Ingest states.
const (
	IngestUpload     = "upload"     // waiting for (more) bytes
	IngestUploaded   = "uploaded"   // every byte is there
	IngestProcessing = "processing" // being turned into a tileset
	IngestDone       = "done"       // the tileset exists
	IngestFailed     = "failed"     // processing failed; Errors says why
	// States of dataset ingests only (the account API's names): a
	// dataset ingest stays in IngestUpload until it is processed.
	IngestCompleted = "completed" // the tileset exists
	IngestCanceled  = "canceled"  // cancelled; its uploaded bytes are gone
)

// Ingest kinds.
const (
	KindTileset = "tileset" // the admin API's tileset ingests
	KindDataset = "dataset" // the account API's dataset ingests
	// KindPrerender marks the admin API's pre-render jobs: a map's
	// raster tiles rendered into a new tileset (package prerender).
	KindPrerender = "prerender"
)

// Ingest is the persistent record of one upload session.
type Ingest struct {
	ID         string
	DocumentID string // the id the tileset will get
	Filename   string
	Size       int64
	State      string
	Errors     []string
	TilesetID  string
	Created    string
	Changed    string

	// Kind is KindTileset (the default) or KindDataset.
	Kind string
	// Progress of processing, 0 to 1.
	Progress float64
	// UploadType is how the bytes arrive (dataset ingests): s3_multipart
	// or resumable.
	UploadType string
	// UploadID is the multipart upload's id while it is open, ObjectKey
	// the object it makes, PartSize the size of its parts.
	UploadID  string
	ObjectKey string
	PartSize  int64
	// OutputType is the output the client asked for (raster_tileset,
	// vector_tileset) or empty.
	OutputType string
	// LeaseOwner and LeaseUntil name the process working on a processing
	// ingest and until when (LeaseTime format); others may take it over
	// after that.
	LeaseOwner string
	LeaseUntil string
	// Params is what a job of another kind than an upload is asked to
	// do (KindPrerender: the zooms, bounds and format, as JSON).
	Params string
}

// LeaseTime formats lease times: fixed width, so that they compare as
// strings in SQL.
const LeaseTime = "2006-01-02T15:04:05.000000000Z"

const ingestCols = `id, document_id, filename, size, state, errors, tileset_id, created, changed, kind, progress, upload_type, upload_id, object_key, part_size, output_type, lease_owner, lease_until, params`

func scanIngest(sc interface{ Scan(...any) error }) (Ingest, error) {
	var in Ingest
	var errs string
	err := sc.Scan(&in.ID, &in.DocumentID, &in.Filename, &in.Size, &in.State, &errs, &in.TilesetID, &in.Created, &in.Changed,
		&in.Kind, &in.Progress, &in.UploadType, &in.UploadID, &in.ObjectKey, &in.PartSize, &in.OutputType, &in.LeaseOwner, &in.LeaseUntil, &in.Params)
	if err == nil && errs != "" {
		if jerr := json.Unmarshal([]byte(errs), &in.Errors); jerr != nil {
			in.Errors = []string{errs}
		}
	}
	return in, err
}

// CreateIngest inserts a new upload session.
func (s *DB) CreateIngest(ctx context.Context, in Ingest) (Ingest, error) {
	in.Created, in.Changed = now(), now()
	if in.Kind == "" {
		in.Kind = KindTileset
	}
	if _, err := s.exec(ctx, `INSERT INTO ingests (`+ingestCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, in.DocumentID, in.Filename, in.Size, in.State, encodeErrors(in.Errors), in.TilesetID, in.Created, in.Changed,
		in.Kind, in.Progress, in.UploadType, in.UploadID, in.ObjectKey, in.PartSize, in.OutputType, in.LeaseOwner, in.LeaseUntil, in.Params); err != nil {
		return Ingest{}, fmt.Errorf("create ingest: %w", err)
	}
	return in, nil
}

// ErrOverQuota is wrapped by CreateIngestWithin when the session would pass
// its bound.
var ErrOverQuota = errors.New("over quota")

// quotaLock is the PostgreSQL advisory lock key that makes the quota
// check and the insert of CreateIngestWithin one step across nodes.
const quotaLock = 0x7e55e7b

// CreateIngestWithin inserts a new session only if others (bytes counted
// outside the ingests table, say the tilesets' files) plus the declared
// sizes of the sessions of its kind uploading or processing plus its own
// size stay within limit; otherwise it fails with ErrOverQuota and the
// bytes used. The check and the insert are one step for every connection,
// process and node: on PostgreSQL the transaction first takes an advisory
// lock, so that a second creation waits and then sees the first one's row
// (READ COMMITTED takes a new snapshot per statement); on SQLite the
// insert is one INSERT ... SELECT ... WHERE, which SQLite runs under its
// write lock.
func (s *DB) CreateIngestWithin(ctx context.Context, in Ingest, others, limit int64) (Ingest, int64, error) {
	in.Created, in.Changed = now(), now()
	if in.Kind == "" {
		in.Kind = KindTileset
	}
	var used int64
	inserted := false
	inFlight := `(SELECT COALESCE(SUM(size), 0) FROM ingests WHERE kind = ? AND state IN (?, ?))`
	err := s.inTx(ctx, func(tx *Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, quotaLock); err != nil {
				return err
			}
		}
		res, err := tx.exec(ctx, `INSERT INTO ingests (`+ingestCols+`) SELECT ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?, ?, ?, ?, `+
			`CAST(? AS DOUBLE PRECISION), ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?, ? WHERE CAST(? AS BIGINT) + `+inFlight+` <= CAST(? AS BIGINT)`,
			in.ID, in.DocumentID, in.Filename, in.Size, in.State, encodeErrors(in.Errors), in.TilesetID, in.Created, in.Changed,
			in.Kind, in.Progress, in.UploadType, in.UploadID, in.ObjectKey, in.PartSize, in.OutputType, in.LeaseOwner, in.LeaseUntil, in.Params,
			others+in.Size, in.Kind, IngestUpload, IngestProcessing, limit)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			inserted = true
			return nil
		}
		return tx.queryRow(ctx, `SELECT `+inFlight, in.Kind, IngestUpload, IngestProcessing).Scan(&used)
	})
	if err != nil {
		return Ingest{}, 0, fmt.Errorf("create ingest: %w", err)
	}
	if !inserted {
		return Ingest{}, others + used, fmt.Errorf("create ingest: %w", ErrOverQuota)
	}
	return in, 0, nil
}

// Ingest returns the session with the given id.
func (s *DB) Ingest(ctx context.Context, id string) (Ingest, error) {
	in, err := scanIngest(s.queryRow(ctx, `SELECT `+ingestCols+` FROM ingests WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Ingest{}, fmt.Errorf("ingest %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Ingest{}, fmt.Errorf("read ingest %s: %w", id, err)
	}
	return in, nil
}

// UpdateIngest writes the state, errors, tileset, progress, upload id
// and lease of a session.
func (s *DB) UpdateIngest(ctx context.Context, in Ingest) (Ingest, error) {
	return s.UpdateIngestIf(ctx, in, IngestCond{})
}

// IngestCond is what UpdateIngestIf requires of the stored session.
type IngestCond struct {
	// States, when any, lists the states the session must be in.
	States []string
	// LeaseOwner, when set, must hold the session's lease.
	LeaseOwner string
}

// ErrStale is returned by UpdateIngestIf when the session no longer
// meets the condition (another request or node changed it first).
var ErrStale = errors.New("the ingest changed meanwhile")

// UpdateIngestIf is UpdateIngest when the stored session meets cond, in
// one statement (so two nodes cannot both make the same change); ErrStale
// when it does not, ErrNotFound when there is no such session.
func (s *DB) UpdateIngestIf(ctx context.Context, in Ingest, cond IngestCond) (Ingest, error) {
	in.Changed = now()
	q := `UPDATE ingests SET state = ?, errors = ?, tileset_id = ?, changed = ?, progress = ?, upload_id = ?, lease_owner = ?, lease_until = ? WHERE id = ?`
	args := []any{in.State, encodeErrors(in.Errors), in.TilesetID, in.Changed, in.Progress, in.UploadID, in.LeaseOwner, in.LeaseUntil, in.ID}
	if len(cond.States) > 0 {
		q += ` AND state IN (?` + strings.Repeat(`, ?`, len(cond.States)-1) + `)`
		for _, st := range cond.States {
			args = append(args, st)
		}
	}
	if cond.LeaseOwner != "" {
		q += ` AND lease_owner = ?`
		args = append(args, cond.LeaseOwner)
	}
	res, err := s.exec(ctx, q, args...)
	if err != nil {
		return Ingest{}, fmt.Errorf("update ingest %s: %w", in.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.Ingest(ctx, in.ID); err != nil {
			return Ingest{}, err
		}
		return Ingest{}, fmt.Errorf("ingest %s: %w", in.ID, ErrStale)
	}
	return in, nil
}

// ClaimIngest gives the lease of a processing session to owner until the
// given time (LeaseTime format) when nobody holds it, its lease ended
// before now, or owner holds it already; it tells whether owner got it.
func (s *DB) ClaimIngest(ctx context.Context, id, owner, until, now string) (bool, error) {
	res, err := s.exec(ctx, `UPDATE ingests SET lease_owner = ?, lease_until = ? WHERE id = ? AND state = ? AND (lease_owner = '' OR lease_owner = ? OR lease_until < ?)`,
		owner, until, id, IngestProcessing, owner, now)
	if err != nil {
		return false, fmt.Errorf("claim ingest %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ClaimNext gives owner the lease, until the given time (LeaseTime
// format), of the oldest processing session of a kind that nobody holds
// or whose lease ended before now, and returns its id; "" when there is
// none. On PostgreSQL the session is chosen with SELECT ... FOR UPDATE
// SKIP LOCKED in the same statement, so nodes claiming at once each get
// another session (or none) without waiting on each other's rows; on
// SQLite the writes are serialised anyway.
func (s *DB) ClaimNext(ctx context.Context, kind, owner, until, now string) (string, error) {
	lock := ""
	if s.dialect == Postgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	var id string
	err := s.queryRow(ctx, `UPDATE ingests SET lease_owner = ?, lease_until = ? WHERE id = (SELECT id FROM ingests WHERE kind = ? AND state = ? AND (lease_owner = '' OR lease_until < ?) ORDER BY changed, id LIMIT 1`+lock+`) RETURNING id`,
		owner, until, kind, IngestProcessing, now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("claim an ingest: %w", err)
	}
	return id, nil
}

// RenewIngest extends owner's lease of a processing session until the
// given time and raises its progress (never lowers it); ErrStale when the
// session is no longer processing under owner's lease (cancelled, taken
// over).
func (s *DB) RenewIngest(ctx context.Context, id, owner, until string, progress float64) error {
	res, err := s.exec(ctx, `UPDATE ingests SET lease_until = ?, progress = CASE WHEN progress > ? THEN progress ELSE ? END WHERE id = ? AND state = ? AND lease_owner = ?`,
		until, progress, progress, id, IngestProcessing, owner)
	if err != nil {
		return fmt.Errorf("renew ingest %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("ingest %s: %w", id, ErrStale)
	}
	return nil
}

// ReleaseIngest gives back owner's lease of a processing session (the
// owner stops without finishing it), so that another may claim it at once;
// nothing happens when the session is no longer processing under owner's
// lease.
func (s *DB) ReleaseIngest(ctx context.Context, id, owner string) error {
	if _, err := s.exec(ctx, `UPDATE ingests SET lease_owner = '', lease_until = '' WHERE id = ? AND state = ? AND lease_owner = ?`,
		id, IngestProcessing, owner); err != nil {
		return fmt.Errorf("release ingest %s: %w", id, err)
	}
	return nil
}

// Claimable returns the ids of the processing sessions of a kind that
// nobody holds, or whose lease ended before now, oldest first.
func (s *DB) Claimable(ctx context.Context, kind, now string) ([]string, error) {
	rows, err := s.query(ctx, `SELECT id FROM ingests WHERE kind = ? AND state = ? AND (lease_owner = '' OR lease_until < ?) ORDER BY changed`, kind, IngestProcessing, now)
	if err != nil {
		return nil, fmt.Errorf("list claimable ingests: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list claimable ingests: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// IngestBytesInFlight is the sum of the declared sizes of the sessions of
// a kind still uploading or processing.
func (s *DB) IngestBytesInFlight(ctx context.Context, kind string) (int64, error) {
	var n int64
	err := s.queryRow(ctx, `SELECT COALESCE(SUM(size), 0) FROM ingests WHERE kind = ? AND state IN (?, ?)`, kind, IngestUpload, IngestProcessing).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sum ingest sizes: %w", err)
	}
	return n, nil
}

// Ingests returns every tileset session (the admin API's), newest first.
func (s *DB) Ingests(ctx context.Context) ([]Ingest, error) {
	return s.IngestsOfKind(ctx, KindTileset)
}

// IngestsOfKind returns every session of a kind, newest first.
func (s *DB) IngestsOfKind(ctx context.Context, kind string) ([]Ingest, error) {
	rows, err := s.query(ctx, `SELECT `+ingestCols+` FROM ingests WHERE kind = ? ORDER BY created DESC`, kind)
	if err != nil {
		return nil, fmt.Errorf("list ingests: %w", err)
	}
	defer rows.Close()
	var out []Ingest
	for rows.Next() {
		in, err := scanIngest(rows)
		if err != nil {
			return nil, fmt.Errorf("list ingests: %w", err)
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

func encodeErrors(errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	b, _ := json.Marshal(errs)
	return string(b)
}

// DeleteIngest removes a session's record.
func (s *DB) DeleteIngest(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM ingests WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete ingest %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("ingest %s: %w", id, ErrNotFound)
	}
	return nil
}

// PurgeIngests deletes the records of the sessions of a kind that are in
// one of the final states given and last changed before before (RFC 3339,
// UTC), and returns their ids.
func (s *DB) PurgeIngests(ctx context.Context, kind string, states []string, before string) ([]string, error) {
	if len(states) == 0 {
		return nil, nil
	}
	args := []any{kind, before}
	for _, st := range states {
		args = append(args, st)
	}
	rows, err := s.query(ctx, `DELETE FROM ingests WHERE kind = ? AND changed < ? AND state IN (?`+
		strings.Repeat(", ?", len(states)-1)+`) RETURNING id`, args...)
	if err != nil {
		return nil, fmt.Errorf("purge ingests: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("purge ingests: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("purge ingests: %w", err)
	}
	return ids, nil
}
