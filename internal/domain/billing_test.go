package domain

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/money"
)

func TestPeriodEnd(t *testing.T) {
	for _, c := range []struct{ start, period, want string }{
		{"2026-01-15", PeriodMonth, "2026-02-14"},
		{"2026-01-31", PeriodMonth, "2026-02-27"}, // February has no 31st: its last day is the next start
		{"2026-12-01", PeriodMonth, "2026-12-31"},
		{"2028-01-30", PeriodMonth, "2028-02-28"}, // a leap year: the next starts on the 29th
		{"2026-03-01", PeriodWeek, "2026-03-07"},
		{"1.3.2026", PeriodWeek, ""},
	} {
		if got := PeriodEnd(c.start, c.period); got != c.want {
			t.Errorf("PeriodEnd(%s, %s) = %q, want %q", c.start, c.period, got, c.want)
		}
	}
}

// FuzzPeriodEnd: whatever the start, a period is a week of 7 days, or a
// month of 28 to 31, and the next one starts the day after it ends.
func FuzzPeriodEnd(f *testing.F) {
	f.Add("2026-01-31", true)
	f.Add("2026-02-28", false)
	f.Add("x", true)
	f.Fuzz(func(t *testing.T, start string, month bool) {
		period := PeriodWeek
		if month {
			period = PeriodMonth
		}
		end := PeriodEnd(start, period)
		s, err := time.Parse(time.DateOnly, start)
		if err != nil {
			if end != "" {
				t.Fatalf("PeriodEnd(%q) = %q for no date", start, end)
			}
			return
		}
		e, err := time.Parse(time.DateOnly, end)
		if err != nil {
			t.Fatalf("PeriodEnd(%q) = %q, not a date", start, end)
		}
		days := int(e.Sub(s).Hours()/24) + 1
		if (period == PeriodWeek && days != 7) || (period == PeriodMonth && (days < 28 || days > 31)) {
			t.Fatalf("PeriodEnd(%s, %s) = %s: %d days", start, period, end, days)
		}
	})
}

func TestPaymentState(t *testing.T) {
	ils := func(m int64) money.Money { return money.Money{Minor: m, Currency: "ILS"} }
	charge := func(due string, amount, paid int64) Charge {
		return Charge{DueOn: due, Amount: ils(amount), Paid: ils(paid), Balance: ils(amount - paid)}
	}
	for _, c := range []struct {
		name    string
		charges []Charge
		want    string
	}{
		{"none", nil, ""},
		{"due today, unpaid", []Charge{charge("2026-03-01", 100, 0)}, PaymentDue},
		{"past due, unpaid", []Charge{charge("2026-02-28", 100, 0)}, PaymentOverdue},
		{"part paid, due today", []Charge{charge("2026-03-01", 100, 40)}, PaymentPartlyPaid},
		{"paid", []Charge{charge("2026-02-01", 100, 100), charge("2026-02-28", 50, 50)}, PaymentPaid},
		{"an old one paid, a new one overdue", []Charge{charge("2026-01-01", 100, 100), charge("2026-02-01", 100, 0)}, PaymentOverdue},
	} {
		if got := PaymentState(c.charges, "2026-03-01"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
