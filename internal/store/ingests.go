package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Ingest states.
const (
	IngestUpload     = "upload"     // waiting for (more) bytes
	IngestUploaded   = "uploaded"   // every byte is there
	IngestProcessing = "processing" // being turned into a tileset
	IngestDone       = "done"       // the tileset exists
	IngestFailed     = "failed"     // processing failed; Errors says why
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
}

const ingestCols = `id, document_id, filename, size, state, errors, tileset_id, created, changed`

func scanIngest(sc interface{ Scan(...any) error }) (Ingest, error) {
	var in Ingest
	var errs string
	err := sc.Scan(&in.ID, &in.DocumentID, &in.Filename, &in.Size, &in.State, &errs, &in.TilesetID, &in.Created, &in.Changed)
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
	if _, err := s.exec(ctx, `INSERT INTO ingests (`+ingestCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, in.DocumentID, in.Filename, in.Size, in.State, encodeErrors(in.Errors), in.TilesetID, in.Created, in.Changed); err != nil {
		return Ingest{}, fmt.Errorf("create ingest: %w", err)
	}
	return in, nil
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

// UpdateIngest writes the state, errors and tileset of a session.
func (s *DB) UpdateIngest(ctx context.Context, in Ingest) (Ingest, error) {
	in.Changed = now()
	res, err := s.exec(ctx, `UPDATE ingests SET state = ?, errors = ?, tileset_id = ?, changed = ? WHERE id = ?`,
		in.State, encodeErrors(in.Errors), in.TilesetID, in.Changed, in.ID)
	if err != nil {
		return Ingest{}, fmt.Errorf("update ingest %s: %w", in.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Ingest{}, fmt.Errorf("ingest %s: %w", in.ID, ErrNotFound)
	}
	return in, nil
}

// Ingests returns every session, newest first.
func (s *DB) Ingests(ctx context.Context) ([]Ingest, error) {
	rows, err := s.query(ctx, `SELECT `+ingestCols+` FROM ingests ORDER BY created DESC`)
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
