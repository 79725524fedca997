package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
		if err := addItemMonths(ctx, tx, rows); err != nil {
			return err
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

// The kinds of items of usage_item_months.
const (
	itemKey   = "key"
	itemToken = "token"
)

// dayColumns are usage_item_months' columns of the days of a month:
// d01..d31.
var dayColumns = func() []string {
	c := make([]string, 31)
	for i := range c {
		c[i] = fmt.Sprintf("d%02d", i+1)
	}
	return c
}()

// usageItemMonthsTable holds the counts of each key and token by group and
// month (YYYY-MM), one column per day, summed over services.
var usageItemMonthsTable = `CREATE TABLE usage_item_months (
		kind TEXT NOT NULL,
		grp TEXT NOT NULL,
		month TEXT NOT NULL,
		item TEXT NOT NULL,
		` + strings.Join(dayColumns, " BIGINT NOT NULL DEFAULT 0,\n\t\t") + ` BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (kind, grp, month, item)
	)`

// usageItemMonthsBackfill fills usage_item_months from usage_counts (the
// migration that makes it).
var usageItemMonthsBackfill = func() string {
	var sums strings.Builder
	for i, c := range dayColumns {
		fmt.Fprintf(&sums, ", SUM(CASE WHEN substr(day, 9, 2) = '%02d' THEN value ELSE 0 END) AS %s", i+1, c)
	}
	sel := func(kind, col string) string {
		return `SELECT '` + kind + `', grp, substr(day, 1, 7), ` + col + sums.String() +
			` FROM usage_counts WHERE ` + col + ` <> '' GROUP BY grp, substr(day, 1, 7), ` + col
	}
	return `INSERT INTO usage_item_months (kind, grp, month, item, ` + strings.Join(dayColumns, ", ") + `) ` +
		sel(itemKey, "key_id") + ` UNION ALL ` + sel(itemToken, "token_id")
}()

// itemMonth is one row of usage_item_months being added to.
type itemMonth struct {
	kind, group, month, item string
	days                     [31]int64
}

// addItemMonths adds counts (merged and sorted by mergeUsage) to
// usage_item_months: additive upserts of the day columns the counts touch
// (one, or two around midnight), rows in key order, as usage_counts.
func addItemMonths(ctx context.Context, tx *Tx, rows []UsageCount) error {
	type rowKey struct{ kind, group, month, item string }
	byKey := map[rowKey]*itemMonth{}
	var touched [31]bool
	add := func(kind, item string, c UsageCount) error {
		if len(c.Day) != len("2006-01-02") {
			return fmt.Errorf("usage count of day %q: not YYYY-MM-DD", c.Day)
		}
		d, err := strconv.Atoi(c.Day[8:])
		if err != nil || d < 1 || d > 31 {
			return fmt.Errorf("usage count of day %q: not YYYY-MM-DD", c.Day)
		}
		k := rowKey{kind, c.Group, c.Day[:7], item}
		m := byKey[k]
		if m == nil {
			m = &itemMonth{kind: kind, group: c.Group, month: c.Day[:7], item: item}
			byKey[k] = m
		}
		m.days[d-1] += c.Value
		touched[d-1] = true
		return nil
	}
	for _, c := range rows {
		if c.KeyID != "" {
			if err := add(itemKey, c.KeyID, c); err != nil {
				return err
			}
		}
		if c.TokenID != "" {
			if err := add(itemToken, c.TokenID, c); err != nil {
				return err
			}
		}
	}
	if len(byKey) == 0 {
		return nil
	}
	ms := make([]*itemMonth, 0, len(byKey))
	for _, m := range byKey {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b *itemMonth) int {
		return cmp.Or(strings.Compare(a.kind, b.kind), strings.Compare(a.group, b.group),
			strings.Compare(a.month, b.month), strings.Compare(a.item, b.item))
	})
	var days []int
	var cols, set strings.Builder
	for d, ok := range touched {
		if ok {
			days = append(days, d)
			fmt.Fprintf(&cols, ", %s", dayColumns[d])
			if set.Len() > 0 {
				set.WriteString(", ")
			}
			fmt.Fprintf(&set, "%[1]s = usage_item_months.%[1]s + excluded.%[1]s", dayColumns[d])
		}
	}
	width := 4 + len(days)
	batch := min(usageBatch, maxParams/width)
	for i := 0; i < len(ms); i += batch {
		b := ms[i:min(i+batch, len(ms))]
		args := make([]any, 0, width*len(b))
		for _, m := range b {
			args = append(args, m.kind, m.group, m.month, m.item)
			for _, d := range days {
				args = append(args, m.days[d])
			}
		}
		q := `INSERT INTO usage_item_months (kind, grp, month, item` + cols.String() + `) VALUES ` +
			placeholderRows(len(b), width) + ` ON CONFLICT (kind, grp, month, item) DO UPDATE SET ` + set.String()
		if _, err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// maxParams bounds the parameters of one statement (SQLite allows 32,766,
// PostgreSQL 65,535).
const maxParams = 16000

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
// (or token) are left out, and so are days without counts. The rows come
// in no particular order.
//
// By service, the small table usage_services is read. By key and by token,
// usage_item_months: one row per item, group and month holding every day
// (a 90-day timeline of 1,000 keys reads 4,000 rows, not 90,000); with a
// group, its primary key gives exactly that group's rows of those months.
func (s *DB) UsageSums(ctx context.Context, by UsageItem, since, until, group string) ([]UsageSum, error) {
	switch by {
	case ByService:
		return s.serviceSums(ctx, since, until, group)
	case ByKey:
		return s.itemSums(ctx, itemKey, since, until, group)
	case ByToken:
		return s.itemSums(ctx, itemToken, since, until, group)
	}
	return nil, fmt.Errorf("usage sums: unknown breakdown %d", by)
}

func (s *DB) serviceSums(ctx context.Context, since, until, group string) ([]UsageSum, error) {
	q := `SELECT day, grp, service, SUM(value) FROM usage_services WHERE day >= ? AND day <= ?`
	args := []any{since, until}
	if group != "" {
		q += ` AND grp = ?`
		args = append(args, group)
	}
	rows, err := s.query(ctx, q+` GROUP BY day, grp, service`, args...)
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

func (s *DB) itemSums(ctx context.Context, kind, since, until, group string) ([]UsageSum, error) {
	if len(since) < 7 || len(until) < 7 {
		return nil, fmt.Errorf("usage sums from %q to %q: not YYYY-MM-DD", since, until)
	}
	q := `SELECT grp, month, item, ` + strings.Join(dayColumns, ", ") + ` FROM usage_item_months WHERE kind = ?`
	args := []any{kind}
	if group != "" {
		q += ` AND grp = ?`
		args = append(args, group)
	}
	q += ` AND month >= ? AND month <= ?`
	args = append(args, since[:7], until[:7])
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("usage sums: %w", err)
	}
	defer rows.Close()
	// The rows are kept, then handed out by group and month, day by day:
	// callers file the sums by day, and a day's sums in a row file faster.
	var (
		all  []itemMonth
		r    itemMonth
		dest = make([]any, 3+len(r.days))
	)
	dest[0], dest[1], dest[2] = &r.group, &r.month, &r.item
	for i := range r.days {
		dest[3+i] = &r.days[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("usage sums: %w", err)
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage sums: %w", err)
	}
	slices.SortStableFunc(all, func(a, b itemMonth) int {
		return cmp.Or(strings.Compare(a.group, b.group), strings.Compare(a.month, b.month))
	})
	var days [31]string
	n := 0
	for i := range all {
		if i == 0 || all[i].month != all[i-1].month {
			for d := range days {
				days[d] = fmt.Sprintf("%s-%02d", all[i].month, d+1)
			}
		}
		for d, v := range all[i].days {
			if v != 0 && days[d] >= since && days[d] <= until {
				n++
			}
		}
	}
	out := make([]UsageSum, 0, n)
	for len(all) > 0 {
		run := 1
		for run < len(all) && all[run].group == all[0].group && all[run].month == all[0].month {
			run++
		}
		for d := range days {
			day := fmt.Sprintf("%s-%02d", all[0].month, d+1)
			if day < since || day > until {
				continue
			}
			for i := range run {
				if v := all[i].days[d]; v != 0 {
					out = append(out, UsageSum{Day: day, Group: all[i].group, Item: all[i].item, Value: v})
				}
			}
		}
		all = all[run:]
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
