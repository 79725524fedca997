package usage

import (
	"errors"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBillingPeriodStart(t *testing.T) {
	tests := []struct {
		day        string
		billingDay int
		want       string
	}{
		{"2026-11-28", 1, "2026-11-01"},
		{"2026-11-01", 1, "2026-11-01"},
		{"2026-11-14", 15, "2026-10-15"},
		{"2026-11-15", 15, "2026-11-15"},
		{"2026-01-10", 15, "2025-12-15"}, // across the year
		{"2026-03-01", 28, "2026-02-28"},
		{"2026-02-28", 28, "2026-02-28"},
		{"2026-02-27", 28, "2026-01-28"},
	}
	for _, tc := range tests {
		if got := BillingPeriodStart(day(tc.day), tc.billingDay).Format(time.DateOnly); got != tc.want {
			t.Errorf("BillingPeriodStart(%s, %d) = %s, want %s", tc.day, tc.billingDay, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	now := time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC)
	old := day("2025-06-10")
	tests := []struct {
		period       string
		billingDay   int
		first        time.Time
		since, until string
		buckets      int    // data points
		firstBucket  string // its date
		lastBucket   string
		lastBucketTo string // the day after it
		err          string
	}{
		{CurrentBillingPeriod, 1, old, "2026-11-01", "2026-11-30", 28, "2026-11-01", "2026-11-28", "2026-11-29", ""},
		{CurrentBillingPeriod, 15, old, "2026-11-15", "2026-12-14", 14, "2026-11-15", "2026-11-28", "2026-11-29", ""},
		{LastBillingPeriod, 1, old, "2026-10-01", "2026-10-31", 31, "2026-10-01", "2026-10-31", "2026-11-01", ""},
		{LastBillingPeriod, 15, old, "2026-10-15", "2026-11-14", 31, "2026-10-15", "2026-11-14", "2026-11-15", ""},
		{LastBillingPeriod, 1, day("2026-10-31"), "2026-10-01", "2026-10-31", 31, "2026-10-01", "2026-10-31", "2026-11-01", ""},
		{LastBillingPeriod, 1, day("2026-11-01"), "", "", 0, "", "", "", CodePeriodNotFound}, // first use in this period
		{LastBillingPeriod, 1, time.Time{}, "", "", 0, "", "", "", CodePeriodNotFound},       // nothing counted
		{Past30Days, 1, old, "2026-10-30", "2026-11-28", 30, "2026-10-30", "2026-11-28", "2026-11-29", ""},
		{Past90Days, 1, old, "2026-08-31", "2026-11-28", 90, "2026-08-31", "2026-11-28", "2026-11-29", ""},
		{Past12BillingPeriods, 1, old, "2025-12-01", "2026-11-30", 12, "2025-12-01", "2026-11-01", "2026-12-01", ""},
		{Past12BillingPeriods, 15, old, "2025-12-15", "2026-12-14", 12, "2025-12-15", "2026-11-15", "2026-12-15", ""},
		{Past12Months, 15, old, "2025-12-01", "2026-11-30", 12, "2025-12-01", "2026-11-01", "2026-12-01", ""},
		{All, 1, old, "2025-06-01", "2026-11-30", 18, "2025-06-01", "2026-11-01", "2026-12-01", ""},
		{All, 1, time.Time{}, "2026-11-01", "2026-11-30", 1, "2026-11-01", "2026-11-01", "2026-12-01", ""},
		{"yesterday", 1, old, "", "", 0, "", "", "", CodeInvalidParameter},
	}
	for _, tc := range tests {
		sp, err := resolve(tc.period, now, tc.billingDay, tc.first)
		if tc.err != "" {
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.err {
				t.Errorf("%s (billing day %d, first %v): err = %v, want %s", tc.period, tc.billingDay, tc.first, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.period, err)
			continue
		}
		f := func(t time.Time) string { return t.Format(time.DateOnly) }
		if f(sp.since) != tc.since || f(sp.until) != tc.until || len(sp.buckets) != tc.buckets {
			t.Errorf("%s (billing day %d): %s..%s with %d points, want %s..%s with %d", tc.period, tc.billingDay,
				f(sp.since), f(sp.until), len(sp.buckets), tc.since, tc.until, tc.buckets)
			continue
		}
		b0, bn := sp.buckets[0], sp.buckets[len(sp.buckets)-1]
		if f(b0.start) != tc.firstBucket || f(bn.start) != tc.lastBucket || f(bn.end) != tc.lastBucketTo {
			t.Errorf("%s (billing day %d): points %s .. %s-%s, want %s .. %s-%s", tc.period, tc.billingDay,
				f(b0.start), f(bn.start), f(bn.end), tc.firstBucket, tc.lastBucket, tc.lastBucketTo)
		}
		// Buckets tile the span without gaps.
		for i := 1; i < len(sp.buckets); i++ {
			if !sp.buckets[i].start.Equal(sp.buckets[i-1].end) {
				t.Errorf("%s: gap between points %d and %d", tc.period, i-1, i)
			}
		}
		if Daily(tc.period) != (bn.end.Sub(bn.start) == 24*time.Hour) {
			t.Errorf("%s: Daily = %v but its last point spans %v", tc.period, Daily(tc.period), bn.end.Sub(bn.start))
		}
	}
}

func TestEstimate(t *testing.T) {
	b := bucket{day("2026-11-28"), day("2026-11-29")}
	tests := []struct {
		now  time.Time
		v    int64
		want *Point
	}{
		{time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), 100, &Point{"2026-11-28", 200}},
		{time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC), 10, &Point{"2026-11-28", 40}},
		{time.Date(2026, 11, 28, 0, 10, 0, 0, time.UTC), 5, &Point{"2026-11-28", 120}}, // elapsed counted as an hour
		{time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC), 0, &Point{"2026-11-28", 0}},
		{time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), 100, nil}, // the day is over
		{time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC), 100, nil},
	}
	for _, tc := range tests {
		got := estimate(b, tc.v, tc.now)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("estimate(%v, %d) = %v, want %v", tc.now, tc.v, got, tc.want)
		}
	}
	// A month: 10 days of 30 elapsed project 3x.
	m := bucket{day("2026-11-01"), day("2026-12-01")}
	if got := estimate(m, 1000, day("2026-11-11")); got == nil || *got != (Point{"2026-11-01", 3000}) {
		t.Errorf("month estimate = %v, want 3000", got)
	}
}
