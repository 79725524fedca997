package usage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// The classifiers of the analytics queries.
const (
	ClassifierServices    = "services"
	ClassifierAPIKeys     = "api_keys"
	ClassifierCredentials = "service_credentials"
)

// Classifiers lists every classifier.
var Classifiers = []string{ClassifierServices, ClassifierAPIKeys, ClassifierCredentials}

// The codes of the errors of the analytics queries: the spec's three, and
// ours for a parameter that is missing or not understood.
const (
	CodePeriodNotFound   = "period_not_found"
	CodeAccountOverLimit = "account_over_limit"
	CodeResponseTooLarge = "response_too_large"
	CodeInvalidParameter = "invalid_parameter"
)

// Error is a query the analytics refuse: a 400 for the API.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalidParameter, Message: fmt.Sprintf(format, args...)}
}

// Limits of the analytics queries.
const (
	// DefaultMaxItems is how many keys or service tokens a timeline may
	// show (more: account_over_limit).
	DefaultMaxItems = 1000
	// DefaultMaxPoints is how many data points a timeline may hold, over
	// all its datasets (more: response_too_large).
	DefaultMaxPoints = 100_000
	// DefaultTopLimit and MaxTopLimit bound the top list's limit.
	DefaultTopLimit = 10
	MaxTopLimit     = 100
)

// Query is an analytics query.
type Query struct {
	Period     string
	Classifier string
	Group      string // "" for every group
	Limit      int    // top only; 0 for DefaultTopLimit
}

// Point is one data point: the count of a day, billing period or month,
// dated by its first day.
type Point struct {
	Date  string `json:"date"`
	Value int64  `json:"value"`
}

// Dataset is the timeline of one item in one group.
type Dataset struct {
	GroupID string  `json:"group_id"`
	ItemID  string  `json:"item_id"`
	Data    []Point `json:"data"`
	// EstimatedData projects the last point, when its day or month is not
	// over yet, to its end (see Analytics.Timeline); nil otherwise.
	EstimatedData *Point `json:"estimated_data"`
}

// LegendItem names an item.
type LegendItem struct {
	ItemID      string  `json:"item_id"`
	Label       string  `json:"label"`
	Description *string `json:"description"`
}

// Timeline is the answer to a timeline query.
type Timeline struct {
	Since    string       `json:"since"`
	Until    string       `json:"until"`
	Datasets []Dataset    `json:"datasets"`
	Legend   []LegendItem `json:"legend"`
}

// TopItem is one item of a top list.
type TopItem struct {
	ItemID string `json:"item_id"`
	Value  int64  `json:"value"`
}

// TopDataset is the top list of one group.
type TopDataset struct {
	GroupID string    `json:"group_id"`
	Data    []TopItem `json:"data"`
}

// Top is the answer to a top query.
type Top struct {
	Since    string       `json:"since"`
	Until    string       `json:"until"`
	Datasets []TopDataset `json:"datasets"`
	Legend   []LegendItem `json:"legend"`
}

// Store is what the analytics read: the state database.
type Store interface {
	UsageSums(ctx context.Context, by store.UsageItem, since, until, group string) ([]store.UsageSum, error)
	FirstUsageDay(ctx context.Context) (string, error)
	UsageLabels(ctx context.Context, by store.UsageItem) (map[string]store.UsageLabel, error)
}

// Analytics answers the usage analytics queries.
type Analytics struct {
	DB         Store
	BillingDay int              // 1..28; 1 when zero
	Now        func() time.Time // time.Now when nil
	MaxItems   int              // DefaultMaxItems when zero
	MaxPoints  int              // DefaultMaxPoints when zero

	cache dayCache // the sums of closed days
}

func (a *Analytics) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// check validates a query's parameters.
func (q Query) check(top bool) error {
	if q.Period == "" {
		return invalid("the parameter period is required (one of %v)", Periods)
	}
	if !slices.Contains(Periods, q.Period) {
		return invalid("unknown period %q (one of %v)", q.Period, Periods)
	}
	if q.Classifier == "" {
		return invalid("the parameter classifier is required (one of %v)", Classifiers)
	}
	if !slices.Contains(Classifiers, q.Classifier) {
		return invalid("unknown classifier %q (one of %v)", q.Classifier, Classifiers)
	}
	if q.Group != "" && !slices.Contains(Groups, q.Group) {
		return invalid("unknown group %q (one of %v)", q.Group, Groups)
	}
	if q.Classifier != ClassifierServices && !Daily(q.Period) {
		return invalid("the classifier %s supports only the daily periods %s, %s, %s and %s, not %s", q.Classifier,
			CurrentBillingPeriod, LastBillingPeriod, Past30Days, Past90Days, q.Period)
	}
	if top && (q.Limit < 0 || q.Limit > MaxTopLimit) {
		return invalid("limit %d is not between 1 and %d", q.Limit, MaxTopLimit)
	}
	return nil
}

func breakdown(classifier string) store.UsageItem {
	switch classifier {
	case ClassifierAPIKeys:
		return store.ByKey
	case ClassifierCredentials:
		return store.ByToken
	}
	return store.ByService
}

// series is the counts of one group and item, one per bucket.
type series struct {
	group, item string
	values      []int64
	total       int64
}

// collect resolves the query's period and sums the counts per bucket, group
// and item.
func (a *Analytics) collect(ctx context.Context, q Query, top bool) (span, []*series, time.Time, error) {
	if err := q.check(top); err != nil {
		return span{}, nil, time.Time{}, err
	}
	at := a.now().UTC()
	billingDay := a.BillingDay
	if billingDay == 0 {
		billingDay = 1
	}
	var first time.Time
	if q.Period == LastBillingPeriod || q.Period == All {
		d, err := a.DB.FirstUsageDay(ctx)
		if err != nil {
			return span{}, nil, at, err
		}
		if d != "" {
			if first, err = time.Parse(time.DateOnly, d); err != nil {
				return span{}, nil, at, fmt.Errorf("first usage day %q: %w", d, err)
			}
		}
	}
	sp, err := resolve(q.Period, at, billingDay, first)
	if err != nil {
		return span{}, nil, at, err
	}
	// The bucket of every day that can hold data.
	last := sp.lastDay(midnight(at))
	index := map[string]int{}
	for i, b := range sp.buckets {
		for d := b.start; d.Before(b.end) && !d.After(last); d = d.AddDate(0, 0, 1) {
			index[d.Format(time.DateOnly)] = i
		}
	}
	type gi struct{ group, item string }
	byItem := map[gi]*series{}
	var out []*series
	lastDay, lastIndex, lastOK := "", 0, false
	add := func(s store.UsageSum) {
		// Sums come day by day: look the day up once per run.
		if s.Day != lastDay {
			lastDay = s.Day
			lastIndex, lastOK = index[s.Day]
		}
		i, ok := lastIndex, lastOK
		if !ok {
			return
		}
		k := gi{s.Group, s.Item}
		se := byItem[k]
		if se == nil {
			se = &series{group: s.Group, item: s.Item, values: make([]int64, len(sp.buckets))}
			byItem[k] = se
			out = append(out, se)
		}
		se.values[i] += s.Value
		se.total += s.Value
	}
	// One read per group: each reads only its group's rows (see
	// store.DB.UsageSums).
	groups := Groups
	if q.Group != "" {
		groups = []string{q.Group}
	}
	for _, g := range groups {
		if err := a.daySums(ctx, breakdown(q.Classifier), g, sp.since, last, midnight(at), add); err != nil {
			return span{}, nil, at, err
		}
	}
	// Groups in their fixed order, then the largest totals first.
	slices.SortFunc(out, func(a, b *series) int {
		return cmp.Or(cmp.Compare(groupOrder(a.group), groupOrder(b.group)), strings.Compare(a.group, b.group),
			cmp.Compare(b.total, a.total), strings.Compare(a.item, b.item))
	})
	return sp, out, at, nil
}

// groupOrder places the groups as Groups lists them.
func groupOrder(g string) int {
	if i := slices.Index(Groups, g); i >= 0 {
		return i
	}
	return len(Groups)
}

// minElapsed is the least part of a day or month an estimate divides by:
// a projection from the first minutes of a day would swing wildly.
const minElapsed = time.Hour

// estimate projects the count v of bucket b, which holds now, linearly to
// the bucket's end: v x length / elapsed (elapsed at least an hour).
func estimate(b bucket, v int64, now time.Time) *Point {
	if now.Before(b.start) || !now.Before(b.end) {
		return nil
	}
	length, elapsed := b.end.Sub(b.start), max(now.Sub(b.start), minElapsed)
	if elapsed > length {
		elapsed = length
	}
	est := int64(float64(v)*float64(length)/float64(elapsed) + 0.5)
	return &Point{Date: b.start.Format(time.DateOnly), Value: est}
}

// Timeline answers a timeline query: one dataset per group and item with
// a count per day (daily periods) or per billing period or month (monthly
// periods), zero where nothing was counted, in the groups' order
// (request, session, export) and the largest totals first. Items without
// any count in the period are left out. The last point of a dataset, when
// its day or month is not over, gets an estimate (estimated_data): its
// count projected linearly to the end of its day or month.
//
// It fails with account_over_limit when the classifier is api_keys or
// service_credentials and more than MaxItems keys or tokens have counts in
// the period, and with response_too_large when the datasets would hold
// more than MaxPoints points.
func (a *Analytics) Timeline(ctx context.Context, q Query) (Timeline, error) {
	sp, ss, now, err := a.collect(ctx, q, false)
	if err != nil {
		return Timeline{}, err
	}
	if q.Classifier != ClassifierServices {
		maxItems := cmp.Or(a.MaxItems, DefaultMaxItems)
		items := map[string]bool{}
		for _, s := range ss {
			items[s.item] = true
		}
		if len(items) > maxItems {
			return Timeline{}, &Error{Code: CodeAccountOverLimit, Message: fmt.Sprintf(
				"%d %s have counts in this period, more than the %d a timeline can show: ask for the top list instead", len(items), q.Classifier, maxItems)}
		}
	}
	if points := len(ss) * len(sp.buckets); points > cmp.Or(a.MaxPoints, DefaultMaxPoints) {
		return Timeline{}, &Error{Code: CodeResponseTooLarge, Message: fmt.Sprintf(
			"the timeline would hold %d data points, more than %d: choose a group or a shorter period", points, cmp.Or(a.MaxPoints, DefaultMaxPoints))}
	}
	t := Timeline{Since: sp.since.Format(time.DateOnly), Until: sp.until.Format(time.DateOnly), Datasets: make([]Dataset, 0, len(ss))}
	dates := make([]string, len(sp.buckets))
	for i, b := range sp.buckets {
		dates[i] = b.start.Format(time.DateOnly)
	}
	for _, s := range ss {
		d := Dataset{GroupID: s.group, ItemID: s.item, Data: make([]Point, len(s.values))}
		for i, v := range s.values {
			d.Data[i] = Point{Date: dates[i], Value: v}
		}
		if n := len(sp.buckets); n > 0 {
			d.EstimatedData = estimate(sp.buckets[n-1], s.values[n-1], now)
		}
		t.Datasets = append(t.Datasets, d)
	}
	if t.Legend, err = a.legend(ctx, q.Classifier, ss); err != nil {
		return Timeline{}, err
	}
	return t, nil
}

// Top answers a top query: per group (in the groups' order; only groups
// with counts, or the asked group), the items with the largest counts over
// the whole period, at most Limit of them (DefaultTopLimit when zero),
// ties by item id.
func (a *Analytics) Top(ctx context.Context, q Query) (Top, error) {
	sp, ss, _, err := a.collect(ctx, q, true)
	if err != nil {
		return Top{}, err
	}
	limit := cmp.Or(q.Limit, DefaultTopLimit)
	t := Top{Since: sp.since.Format(time.DateOnly), Until: sp.until.Format(time.DateOnly), Datasets: []TopDataset{}}
	var shown []*series
	for _, s := range ss { // sorted by group, then total
		n := len(t.Datasets)
		if n == 0 || t.Datasets[n-1].GroupID != s.group {
			t.Datasets = append(t.Datasets, TopDataset{GroupID: s.group, Data: []TopItem{}})
			n++
		}
		if len(t.Datasets[n-1].Data) < limit {
			t.Datasets[n-1].Data = append(t.Datasets[n-1].Data, TopItem{ItemID: s.item, Value: s.total})
			shown = append(shown, s)
		}
	}
	if q.Group != "" && len(t.Datasets) == 0 {
		t.Datasets = append(t.Datasets, TopDataset{GroupID: q.Group, Data: []TopItem{}})
	}
	if t.Legend, err = a.legend(ctx, q.Classifier, shown); err != nil {
		return Top{}, err
	}
	return t, nil
}

// deletedDescription describes a key or token that no longer exists.
var deletedDescription = "deleted"

// legend names every item of ss once, in the order they first appear.
func (a *Analytics) legend(ctx context.Context, classifier string, ss []*series) ([]LegendItem, error) {
	var labels map[string]store.UsageLabel
	if classifier != ClassifierServices {
		var err error
		if labels, err = a.DB.UsageLabels(ctx, breakdown(classifier)); err != nil {
			return nil, err
		}
	}
	out := []LegendItem{}
	seen := map[string]bool{}
	for _, s := range ss {
		if seen[s.item] {
			continue
		}
		seen[s.item] = true
		li := LegendItem{ItemID: s.item, Label: s.item}
		if classifier == ClassifierServices {
			if svc, ok := serviceByID(s.item); ok {
				desc := svc.Description
				li.Label, li.Description = svc.Label, &desc
			}
		} else if l, ok := labels[s.item]; ok {
			li.Label, li.Description = l.Name, l.Description
		} else {
			desc := deletedDescription
			li.Description = &desc
		}
		out = append(out, li)
	}
	return out, nil
}
