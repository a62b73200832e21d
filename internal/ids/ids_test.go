package ids

import (
	"strings"
	"testing"
	"time"
)

func TestNewCarriesItsKind(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := New(Trainee)
		if !strings.HasPrefix(id, "trn_") || len(id) != len("trn_")+26 {
			t.Fatalf("New(Trainee) = %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
		if k, ok := KindOf(id); !ok || k != Trainee {
			t.Fatalf("KindOf(%q) = %q, %v", id, k, ok)
		}
	}
}

func TestKindOfAndIs(t *testing.T) {
	if k, ok := KindOf("prd_abc"); !ok || k != Product || k.Noun() != "plan" || k.Source() != "list_plans" {
		t.Errorf("prd_abc: %q %v %q %q", k, ok, k.Noun(), k.Source())
	}
	for _, bad := range []string{"", "trn", "xyz_abc", "_abc"} {
		if _, ok := KindOf(bad); ok {
			t.Errorf("KindOf(%q) claims a known kind", bad)
		}
	}
	if !Is("tsk_1", Task) || Is("tsk_", Task) || Is("tskx_1", Task) || Is("trn_1", Task) {
		t.Error("Is disagrees with the prefix rule")
	}
}

func TestIdsSortByCreation(t *testing.T) {
	// The first 9 characters after the prefix hold 45 of the 48 millisecond
	// bits and nothing random, so a later id never sorts before an earlier one there.
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, step := range []time.Duration{time.Millisecond, 2 * time.Millisecond, time.Second, 24 * time.Hour, 3 * 365 * 24 * time.Hour} {
		for i := range 100 {
			at := t0.Add(time.Duration(i) * 7919 * time.Millisecond)
			a, b := newAt(Task, at), newAt(Task, at.Add(step))
			if b[:13] < a[:13] || (step >= 8*time.Millisecond && b[:13] == a[:13]) {
				t.Fatalf("an id %v later (%q) does not sort after the earlier %q", step, b, a)
			}
		}
	}
}

// KindOf reads ids from callers, so any string is fair game: it never
// panics, and whenever Is accepts an id for a kind, KindOf names that kind.
func FuzzKindOf(f *testing.F) {
	for _, s := range []string{"trn_06h2rr9qjj9rg0t22j6x4h992g", "prd_", "_", "", "tsk_1_2", "key_pf_live_x", "TRN_1", "trn__", "\xff_\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, known := KindOf(s)
		if known && !strings.HasPrefix(s, string(k)+"_") {
			t.Fatalf("KindOf(%q) = %q, which is not its prefix", s, k)
		}
		for kind := range kinds {
			if Valid(s, kind) && !Is(s, kind) {
				t.Fatalf("Valid(%q, %q) but not Is", s, kind)
			}
			if Is(s, kind) && (k != kind || !known) {
				t.Fatalf("Is(%q, %q) but KindOf says %q, %v", s, kind, k, known)
			}
		}
	})
}

func TestValid(t *testing.T) {
	if id := New(Trainee); !Valid(id, Trainee) || Valid(id, Task) {
		t.Errorf("Valid disagrees with New for %q", id)
	}
	for _, bad := range []string{"trn_1", "trn_", "trn_06h2rr9qjj9rg0t22j6x4h992", "trn_06h2rr9qjj9rg0t22j6x4h992gg",
		"trn_06h2rr9qjj9rg0t22j6x4h992G", "trn_06h2rr9qjj9rg0t22j6x4h99\x00g", "trn_06h2rr9qjj9rg0t22j6x4h99\xffg", "trn_..", "trn_06h2rr9qjj9rg0t22j6x4h99ug"} {
		if Valid(bad, Trainee) {
			t.Errorf("Valid(%q) = true", bad)
		}
	}
}
