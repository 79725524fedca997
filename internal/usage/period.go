package usage

import (
	"fmt"
	"time"
)

// The periods of the analytics queries.
const (
	CurrentBillingPeriod = "current_billing_period"
	LastBillingPeriod    = "last_billing_period"
	Past30Days           = "past_30_days"
	Past90Days           = "past_90_days"
	Past12BillingPeriods = "past_12_billing_periods"
	Past12Months         = "past_12_months"
	All                  = "all"
)

// Periods lists every period.
var Periods = []string{CurrentBillingPeriod, LastBillingPeriod, Past30Days, Past90Days, Past12BillingPeriods, Past12Months, All}

// Daily tells whether a period's data are daily (the others are monthly:
// one point per billing period or calendar month).
func Daily(period string) bool {
	switch period {
	case CurrentBillingPeriod, LastBillingPeriod, Past30Days, Past90Days:
		return true
	}
	return false
}

// bucket is one data point's span of days: [start, end) at UTC midnights.
type bucket struct{ start, end time.Time }

// span is a period resolved at one instant: its first and last days and its
// data points' buckets, which stop at the bucket holding today.
type span struct {
	since, until time.Time // first and last day (inclusive)
	buckets      []bucket
}

// lastDay is the last day that can hold data: today, or the period's end
// when that is earlier.
func (s span) lastDay(today time.Time) time.Time {
	if s.until.Before(today) {
		return s.until
	}
	return today
}

// BillingPeriodStart returns the first day of the billing period holding
// day: billing periods start on billingDay (1..28) of each month.
func BillingPeriodStart(day time.Time, billingDay int) time.Time {
	y, m, d := day.Date()
	if d < billingDay {
		m--
	}
	return time.Date(y, m, billingDay, 0, 0, 0, 0, time.UTC)
}

// midnight is the UTC day holding t.
func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// resolve returns the span of a period at now. first is the first day with
// counts (zero when there are none): last_billing_period does not exist
// (ErrPeriodNotFound) unless something was counted before the current
// billing period began, and "all" starts in first's month.
func resolve(period string, now time.Time, billingDay int, first time.Time) (span, error) {
	today := midnight(now)
	cur := BillingPeriodStart(today, billingDay)
	daily := func(since, until time.Time) span {
		s := span{since: since, until: until}
		for d := since; !d.After(until) && !d.After(today); d = d.AddDate(0, 0, 1) {
			s.buckets = append(s.buckets, bucket{d, d.AddDate(0, 0, 1)})
		}
		return s
	}
	monthly := func(start time.Time, n int) span {
		s := span{since: start, until: start.AddDate(0, n, -1)}
		for i := range n {
			b := bucket{start.AddDate(0, i, 0), start.AddDate(0, i+1, 0)}
			if b.start.After(today) {
				break
			}
			s.buckets = append(s.buckets, b)
		}
		return s
	}
	switch period {
	case CurrentBillingPeriod:
		return daily(cur, cur.AddDate(0, 1, -1)), nil
	case LastBillingPeriod:
		if first.IsZero() || !first.Before(cur) {
			return span{}, &Error{Code: CodePeriodNotFound, Message: fmt.Sprintf(
				"there is no last billing period: nothing was counted before the current one began on %s", cur.Format(time.DateOnly))}
		}
		return daily(cur.AddDate(0, -1, 0), cur.AddDate(0, 0, -1)), nil
	case Past30Days:
		return daily(today.AddDate(0, 0, -29), today), nil
	case Past90Days:
		return daily(today.AddDate(0, 0, -89), today), nil
	case Past12BillingPeriods:
		return monthly(cur.AddDate(0, -11, 0), 12), nil
	case Past12Months:
		return monthly(time.Date(today.Year(), today.Month()-11, 1, 0, 0, 0, 0, time.UTC), 12), nil
	case All:
		start := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
		if !first.IsZero() && first.Before(start) {
			start = time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC)
		}
		n := (today.Year()-start.Year())*12 + int(today.Month()-start.Month()) + 1
		return monthly(start, n), nil
	}
	return span{}, &Error{Code: CodeInvalidParameter, Message: fmt.Sprintf("unknown period %q (one of %v)", period, Periods)}
}
