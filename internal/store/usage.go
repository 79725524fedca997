package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// UsageCount is a number of requests counted on one day (YYYY-MM-DD, UTC)
// for one service and group, by one API key (KeyID) or service token
// (TokenID), or neither.
type UsageCount struct {
	Day     string
	Service string
	Group   string
	KeyID   string
	TokenID string
	Value   int64
}

// usageBatch is how many rows one INSERT carries (7 parameters each: well
// under SQLite's and PostgreSQL's limits).
const usageBatch = 400

// AddUsage adds counts to the stored ones in one transaction: additive
// upserts (value = value + excluded.value), so that several server nodes
// flushing the same day, service and key add up exactly, and a flush that
// fails leaves nothing half-written. The per-service sums (usage_services)
// are updated in the same transaction. Rows are written in key order so that
// concurrent flushes lock them in the same order (no deadlocks on
// PostgreSQL). Counts with the same key are summed first.
func (s *DB) AddUsage(ctx context.Context, counts []UsageCount) error {
	if len(counts) == 0 {
		return nil
	}
	rows := mergeUsage(counts)
	type svcKey struct{ day, service, group string }
	sums := map[svcKey]int64{}
	for _, c := range rows {
		sums[svcKey{c.Day, c.Service, c.Group}] += c.Value
	}
	svc := make([]UsageCount, 0, len(sums))
	for k, v := range sums {
		svc = append(svc, UsageCount{Day: k.day, Service: k.service, Group: k.group, Value: v})
	}
	slices.SortFunc(svc, compareUsage)

	err := s.inTx(ctx, func(tx *Tx) error {
		for i := 0; i < len(rows); i += usageBatch {
			b := rows[i:min(i+usageBatch, len(rows))]
			args := make([]any, 0, 6*len(b))
			for _, c := range b {
				args = append(args, c.Day, c.Service, c.Group, c.KeyID, c.TokenID, c.Value)
			}
			q := `INSERT INTO usage_counts (day, service, grp, key_id, token_id, value) VALUES ` +
				placeholderRows(len(b), 6) +
				` ON CONFLICT (day, service, grp, key_id, token_id) DO UPDATE SET value = usage_counts.value + excluded.value`
			if _, err := tx.exec(ctx, q, args...); err != nil {
				return err
			}
		}
		for i := 0; i < len(svc); i += usageBatch {
			b := svc[i:min(i+usageBatch, len(svc))]
			args := make([]any, 0, 4*len(b))
			for _, c := range b {
				args = append(args, c.Day, c.Service, c.Group, c.Value)
			}
			q := `INSERT INTO usage_services (day, service, grp, value) VALUES ` + placeholderRows(len(b), 4) +
				` ON CONFLICT (day, service, grp) DO UPDATE SET value = usage_services.value + excluded.value`
			if _, err := tx.exec(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add usage counts: %w", err)
	}
	return nil
}

// mergeUsage sums counts with the same key and sorts them by key.
func mergeUsage(counts []UsageCount) []UsageCount {
	rows := slices.Clone(counts)
	slices.SortFunc(rows, compareUsage)
	out := rows[:0]
	for _, c := range rows {
		if n := len(out); n > 0 && compareUsage(out[n-1], c) == 0 {
			out[n-1].Value += c.Value
			continue
		}
		out = append(out, c)
	}
	return out
}

func compareUsage(a, b UsageCount) int {
	return cmp.Or(strings.Compare(a.Day, b.Day), strings.Compare(a.Service, b.Service),
		strings.Compare(a.Group, b.Group), strings.Compare(a.KeyID, b.KeyID), strings.Compare(a.TokenID, b.TokenID))
}

// placeholderRows returns n groups of cols placeholders: (?, ?), (?, ?).
func placeholderRows(n, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(row+", ", n-1) + row
}

// UsageItem is what usage sums are broken down by.
type UsageItem int

// The breakdowns of usage sums: by service, by API key, by service token.
const (
	ByService UsageItem = iota
	ByKey
	ByToken
)

// UsageSum is the sum of the counts of one day, group and item (a service,
// a key id or a token id).
type UsageSum struct {
	Day   string
	Group string
	Item  string
	Value int64
}

// UsageSums returns the sums of the counts from day since to day until
// (inclusive, YYYY-MM-DD), by day, group and item, of one group (all
// groups when group is empty). By key and by token, counts without a key
// (or token) are left out. The rows come in no particular order.
//
// With a group, the index usage_counts_grp (grp, day, key_id, ...) gives
// exactly that group's rows of those days, in the order of the GROUP BY: no
// sort and no table lookups; one query per group is the fast way to read
// several. By service, the small table usage_services is read.
func (s *DB) UsageSums(ctx context.Context, by UsageItem, since, until, group string) ([]UsageSum, error) {
	var table, item, cond string
	switch by {
	case ByService:
		table, item = "usage_services", "service"
	case ByKey:
		table, item, cond = "usage_counts", "key_id", ` AND key_id <> ''`
	case ByToken:
		// token_id > '' (not <> ''): a range that SQLite reads from the
		// index usage_counts_grp_token, which holds only the rows with a
		// token apart.
		table, item, cond = "usage_counts", "token_id", ` AND token_id > ''`
	default:
		return nil, fmt.Errorf("usage sums: unknown breakdown %d", by)
	}
	q := `SELECT day, grp, ` + item + `, SUM(value) FROM ` + table + ` WHERE day >= ? AND day <= ?` + cond
	args := []any{since, until}
	if group != "" {
		q += ` AND grp = ?`
		args = append(args, group)
	}
	rows, err := s.query(ctx, q+` GROUP BY day, grp, `+item, args...)
	if err != nil {
		return nil, fmt.Errorf("usage sums: %w", err)
	}
	defer rows.Close()
	var out []UsageSum
	for rows.Next() {
		var u UsageSum
		if err := rows.Scan(&u.Day, &u.Group, &u.Item, &u.Value); err != nil {
			return nil, fmt.Errorf("usage sums: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage sums: %w", err)
	}
	return out, nil
}

// FirstUsageDay returns the earliest day with a usage count, or "" when
// nothing was ever counted.
func (s *DB) FirstUsageDay(ctx context.Context) (string, error) {
	var d sql.NullString
	if err := s.queryRow(ctx, `SELECT MIN(day) FROM usage_services`).Scan(&d); err != nil {
		return "", fmt.Errorf("first usage day: %w", err)
	}
	return d.String, nil
}

// UsageLabel names an API key or service token in analytics legends.
type UsageLabel struct {
	Name        string
	Description *string
}

// UsageLabels returns the names (and descriptions) of the API keys (by
// ByKey) or service tokens (ByToken), by id. Revoked tokens are included:
// their past usage still needs a name.
func (s *DB) UsageLabels(ctx context.Context, by UsageItem) (map[string]UsageLabel, error) {
	var q string
	switch by {
	case ByKey:
		q = `SELECT id, name, description FROM api_keys`
	case ByToken:
		q = `SELECT id, name, NULL FROM service_tokens`
	default:
		return nil, errors.New("usage labels: only keys and tokens have labels")
	}
	rows, err := s.query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("usage labels: %w", err)
	}
	defer rows.Close()
	out := map[string]UsageLabel{}
	for rows.Next() {
		var id string
		var l UsageLabel
		var desc sql.NullString
		if err := rows.Scan(&id, &l.Name, &desc); err != nil {
			return nil, fmt.Errorf("usage labels: %w", err)
		}
		if desc.Valid {
			l.Description = &desc.String
		}
		out[id] = l
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage labels: %w", err)
	}
	return out, nil
}
