package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// digestCoach is a studio with one coach whose trainees need her: n
// trainees with an active injury, all hers, and one of another coach.
func digestCoach(t *testing.T, st store.Store, name, phone string, n int, settings string) (domain.Studio, domain.Coach) {
	t.Helper()
	ctx := context.Background()
	studio, coach := studioWithCoach(t, st, "Studio "+name, name+" Levi", phone, time.Now())
	if settings != "" {
		if err := st.UpdateStudioSettings(ctx, studio.ID, json.RawMessage(settings)); err != nil {
			t.Fatal(err)
		}
	}
	other := addCoach(t, st, studio.ID, "Other", "0529999999", true, time.Now())
	ss := st.Studio(studio.ID)
	add := func(first, coachID string, i int) {
		tr := domain.Trainee{FirstName: first, LastName: fmt.Sprint("T", i), Phone: fmt.Sprintf("+97254%07d", time.Now().UnixNano()%10_000_000), CoachIDs: []string{coachID}}
		if err := ss.CreateTrainee(ctx, &tr); err != nil {
			t.Fatal(err)
		}
		if err := ss.CreateInjury(ctx, &domain.Injury{TraineeID: tr.ID, Area: "knee", Side: "left", Severity: 2, Status: domain.InjuryActive, OnsetOn: time.Now().AddDate(0, 0, -3).Format(time.DateOnly), AffectedExercises: []string{}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		add(fmt.Sprint("Mine", i), coach.ID, i)
	}
	add("NotMine", other.ID, 99)
	return studio, coach
}

func optIn(t *testing.T, st store.Store, studioID, coachID string, enabled bool, hour int) {
	t.Helper()
	if err := st.Digests().SetDigestSetting(context.Background(), store.DigestSetting{StudioID: studioID, CoachID: coachID, Enabled: enabled, Hour: hour, UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// digestState is the coach's digest of the day ("" without one).
func digestState(t *testing.T, st store.Store, coachID, day string) string {
	t.Helper()
	rec, err := st.Digests().Digest(context.Background(), coachID, day)
	if errors.Is(err, store.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return rec.State
}

// waitDigests waits until no digest job is waiting or running.
func waitDigests(t *testing.T, st store.Store) {
	t.Helper()
	q := `SELECT count(*) FROM river_job WHERE kind = 'agent_digest' AND state NOT IN ('completed', 'discarded', 'cancelled')`
	waitFor(t, "the digest jobs", func() bool {
		var n int
		if err := st.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}

// The harness's clock starts at 2026-03-10 09:00 UTC: 11:00 in Asia/Jerusalem.
const digestDay = "2026-03-10"

// TestDigestRules: each rule of the morning digest, on both engines, with
// the fake gateway.
func TestDigestRules(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		ctx := context.Background()

		_, never := digestCoach(t, st, "Never", "0501000001", 1, "")
		s, off := digestCoach(t, st, "Off", "0501000002", 1, "")
		optIn(t, st, s.ID, off.ID, false, 8)
		s, early := digestCoach(t, st, "Early", "0501000003", 1, "")
		optIn(t, st, s.ID, early.ID, true, 13)
		s, late := digestCoach(t, st, "Late", "0501000004", 1, "")
		optIn(t, st, s.ID, late.ID, true, 7) // due 07:00 to 10:00: missed today
		s, silent := digestCoach(t, st, "Silent", "0501000005", 2, "")
		optIn(t, st, s.ID, silent.ID, true, 12)
		s, tmpl := digestCoach(t, st, "Tmpl", "0501000006", 7, `{"digestTemplate":"morning_digest"}`)
		optIn(t, st, s.ID, tmpl.ID, true, 12)
		s, talk := digestCoach(t, st, "Talk", "0501000007", 7, "")
		optIn(t, st, s.ID, talk.ID, true, 12)
		// Talk has one appointment today (the lane's today: the clock of
		// the lane the assistant reads is the real one).
		talkTrainees, err := st.Studio(s.ID).SearchTrainees(ctx, store.TraineeFilter{Q: "Mine0", Page: store.Page{Limit: 1}})
		if err != nil || len(talkTrainees.Items) != 1 {
			t.Fatalf("Talk's trainee: %v %v", talkTrainees, err)
		}
		if _, err := st.Studio(s.ID).Book(ctx, store.Booking{TraineeID: talkTrainees.Items[0].ID, CoachID: talk.ID, StartsAt: time.Now(), LengthMin: 45,
			Place: "Hall", BookedBy: domain.LoggedByCoach, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		// It is 11:00 there: no one is due yet, so the scan River runs
		// when it starts finds nothing to do.

		// Talk writes at 11:00 (the assistant answers her).
		h.send("972501000007", "conv-talk", "שלום")
		h.waitIdle()
		h.clock.Advance(time.Hour) // 12:00 local
		before := len(h.sms.Sent())

		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)

		for _, c := range []struct {
			name, id, want string
		}{
			{"never opted in", never.ID, ""},
			{"opted out", off.ID, ""},
			{"past her window", late.ID, ""},
			{"silent for 24 hours, no template", silent.ID, store.DigestSkippedWindow},
			{"silent, with a template", tmpl.ID, store.DigestTemplate},
			{"wrote within 24 hours", talk.ID, store.DigestSent},
			{"before her hour", early.ID, ""},
		} {
			if got := digestState(t, st, c.id, digestDay); got != c.want {
				t.Errorf("%s: digest %q, want %q", c.name, got, c.want)
			}
		}

		// Inside the window: into her conversation, one message naming
		// five with the reason and the rest counted, then the five drafted
		// messages, each alone so she can forward it.
		var mine []fakes.Sent
		for _, m := range h.sms.Sent()[before:] {
			if m.ConversationID != "conv-talk" || m.Authorization != "Bearer "+testKey {
				t.Errorf("a digest message went to %q with %q", m.ConversationID, m.Authorization)
			}
			mine = append(mine, m)
		}
		if len(mine) != 1+digestTop {
			t.Fatalf("%d digest messages, want %d: %+v", len(mine), 1+digestTop, mine)
		}
		list := mine[0].Text
		for _, want := range []string{"בוקר טוב Talk", "היום ביומן (1):", " Mine0 T0, Hall", "היום 7 מתאמנים צריכים אותך", "1. *Mine", "5. *Mine", "פציעה פעילה", "ועוד 2 ברשימה"} {
			if !strings.Contains(list, want) {
				t.Errorf("digest lacks %q:\n%s", want, list)
			}
		}
		if strings.Contains(list, "NotMine") || strings.Contains(list, "6. ") {
			t.Errorf("the digest names another coach's trainee or more than %d:\n%s", digestTop, list)
		}
		for _, m := range mine[1:] {
			if !strings.HasPrefix(m.Text, "היי Mine") || !strings.Contains(m.Text, "הפציעה") {
				t.Errorf("drafted message %q", m.Text)
			}
		}

		// Outside it: the studio's template, to her phone, one line.
		ts := h.sms.Templates()
		if len(ts) != 1 {
			t.Fatalf("templates %+v, want 1", ts)
		}
		tm := ts[0]
		if tm.Template != "morning_digest" || tm.Phone != "972501000006" || tm.Language != "he" || len(tm.Parameters) != 3 ||
			tm.Parameters[0] != "Tmpl" || tm.Parameters[1] != "7" || !strings.Contains(tm.Parameters[2], "(פציעה פעילה)") || !strings.HasSuffix(tm.Parameters[2], "ועוד 2") {
			t.Errorf("template %+v", tm)
		}

		// Once a day: another scan, later the same day, sends nothing.
		h.clock.Advance(30 * time.Minute)
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		if n, m := len(h.sms.Sent())-before, len(h.sms.Templates()); n != 1+digestTop || m != 1 {
			t.Fatalf("after a second scan: %d texts and %d templates, want %d and 1", n, m, 1+digestTop)
		}

		// Tomorrow at her hour, again; Talk last wrote over 24 hours ago.
		h.clock.Advance(24 * time.Hour) // 2026-03-11 12:30 local
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		if got := digestState(t, st, talk.ID, "2026-03-11"); got != store.DigestSkippedWindow {
			t.Errorf("Talk's second day: %q, want skipped_window", got)
		}
		if got := digestState(t, st, tmpl.ID, "2026-03-11"); got != store.DigestTemplate || len(h.sms.Templates()) != 2 {
			t.Errorf("Tmpl's second day: %q with %d templates", got, len(h.sms.Templates()))
		}

		// Talk writes while her digest is still due (12:00 to 15:00): the
		// next scan sends it, into the conversation she opened.
		h.clock.Advance(time.Minute)
		// Counted before she writes: River's own periodic scan may send it
		// while her message is answered.
		before = len(h.sms.Sent())
		h.send("972501000007", "conv-talk-2", "מה יש היום?")
		h.waitIdle()
		h.clock.Advance(2 * time.Minute)
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		if got := digestState(t, st, talk.ID, "2026-03-11"); got != store.DigestSent {
			t.Errorf("Talk's second day after she wrote: %q, want sent", got)
		}
		// The digest's list and drafts, besides the assistant's answer to her.
		digestSince := func() (lists, drafts int) {
			for _, m := range h.sms.Sent()[before:] {
				switch {
				case m.ConversationID != "conv-talk-2":
					t.Errorf("a message went to %q", m.ConversationID)
				case strings.Contains(m.Text, "בוקר טוב Talk"):
					lists++
				case strings.HasPrefix(m.Text, "היי Mine"):
					drafts++
				}
			}
			return lists, drafts
		}
		if lists, drafts := digestSince(); lists != 1 || drafts != digestTop {
			t.Errorf("after she wrote, %d digest lists and %d drafts into conv-talk-2, want 1 and %d", lists, drafts, digestTop)
		}
		// Once: a later scan sends it no more.
		h.clock.Advance(2 * time.Minute)
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		if lists, drafts := digestSince(); lists != 1 || drafts != digestTop {
			t.Errorf("after another scan, %d digest lists and %d drafts, want 1 and %d", lists, drafts, digestTop)
		}

		// Silent writes when hers is no longer due (after 15:00): it stays
		// skipped, for tomorrow.
		h.clock.Advance(3 * time.Hour) // 15:36 local
		h.send("972501000005", "conv-silent", "היי")
		h.waitIdle()
		before = len(h.sms.Sent())
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		if got := digestState(t, st, silent.ID, "2026-03-11"); got != store.DigestSkippedWindow || len(h.sms.Sent()) != before {
			t.Errorf("Silent, writing after her hours: %q and %d messages", got, len(h.sms.Sent())-before)
		}
	})
}

// TestDigestOnceAcrossInstances: two agents, each with its own River
// client, on one database scan at the same moments; every due coach gets
// exactly one digest.
func TestDigestOnceAcrossInstances(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		var opts Options
		h := newHarness(t, st, func(o *Options) { opts = *o })
		second, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		startJobs(t, st, second)
		ctx := context.Background()

		const coaches = 4
		var ids []string
		for i := range coaches {
			s, c := digestCoach(t, st, fmt.Sprint("Multi", i), fmt.Sprintf("05020000%02d", i), 2, "")
			optIn(t, st, s.ID, c.ID, true, 12)
			h.send(fmt.Sprintf("9725020000%02d", i), fmt.Sprint("conv-", i), "שלום")
			ids = append(ids, c.ID)
		}
		h.waitIdle()
		h.clock.Advance(time.Hour) // 12:00 local: all are due

		var wg sync.WaitGroup
		for round := range 3 {
			for _, a := range []*Agent{h.agent, second} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := a.scanDigests(ctx); err != nil {
						t.Errorf("round %d: %v", round, err)
					}
				}()
			}
		}
		wg.Wait()
		waitDigests(t, st)

		lists, drafts := map[string]int{}, map[string]int{}
		for _, m := range h.sms.Sent() {
			switch {
			case strings.HasPrefix(m.Text, "בוקר טוב"):
				lists[m.ConversationID]++
			case strings.HasPrefix(m.Text, "היי Mine"):
				drafts[m.ConversationID]++
			}
		}
		for i := range coaches {
			conv := fmt.Sprint("conv-", i)
			if lists[conv] != 1 || drafts[conv] != 2 {
				t.Errorf("coach %d got %d digests and %d drafts, want 1 and 2", i, lists[conv], drafts[conv])
			}
		}
		for _, id := range ids {
			if got := digestState(t, st, id, digestDay); got != store.DigestSent {
				t.Errorf("coach %s: %q, want sent", id, got)
			}
		}
		var jobs int
		if err := st.DB().QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'agent_digest'`).Scan(&jobs); err != nil {
			t.Fatal(err)
		}
		if jobs != coaches {
			t.Errorf("%d digest jobs for %d coaches", jobs, coaches)
		}
	})
}

// TestDigestRetriesAndCrash: a gateway outage in the middle of a digest
// is retried, and the retry sends only what the gateway had not taken; a digest found half-sent (its worker died while the
// gateway had it) is recorded as failed, never sent a second time.
func TestDigestRetriesAndCrash(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		ctx := context.Background()
		s, c := digestCoach(t, st, "Retry", "0503000001", 2, "")
		optIn(t, st, s.ID, c.ID, true, 12)
		h.send("972503000001", "conv-retry", "שלום")
		h.waitIdle()
		h.clock.Advance(time.Hour) // 12:00 local

		var mu sync.Mutex
		refused := 0
		h.sms.Fail = func(_ int, m fakes.Sent) int {
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(m.Text, "היי Mine1") && refused == 0 {
				refused++
				return http.StatusServiceUnavailable
			}
			return 0
		}
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the digest after the retry", func() bool { return digestState(t, st, c.ID, digestDay) == store.DigestSent })
		var got []string
		for _, m := range h.sms.Sent() {
			if m.ConversationID == "conv-retry" && (strings.HasPrefix(m.Text, "בוקר טוב") || strings.HasPrefix(m.Text, "היי Mine")) {
				got = append(got, m.Text[:strings.Index(m.Text, " ")+8])
			}
		}
		if len(got) != 3 || refused != 1 || !strings.HasPrefix(got[0], "בוקר טוב") || !strings.HasPrefix(got[1], "היי Mine0") || !strings.HasPrefix(got[2], "היי Mine1") {
			t.Fatalf("after %d refusals the coach got %q; want the list and two drafts, once each", refused, got)
		}

		// A digest a dead worker left in sending (she opts in afterwards,
		// so no scan claims her day first).
		s2, c2 := digestCoach(t, st, "Crash", "0503000002", 1, "")
		h.send("972503000002", "conv-crash", "שלום")
		h.waitIdle()
		ds := st.Digests()
		if won, err := ds.ClaimDigest(ctx, c2.ID, s2.ID, digestDay, h.clock.Now()); err != nil || !won {
			t.Fatalf("claim: %v %v", won, err)
		}
		if won, err := ds.MoveDigest(ctx, c2.ID, digestDay, store.DigestClaimed, store.DigestSending, "", h.clock.Now()); err != nil || !won {
			t.Fatalf("sending: %v %v", won, err)
		}
		if err := h.agent.runDigest(ctx, c2.ID, digestDay, false); err != nil {
			t.Fatal(err)
		}
		if got := digestState(t, st, c2.ID, digestDay); got != store.DigestFailed {
			t.Errorf("half-sent digest: %q, want failed", got)
		}
		// The scan does not claim the day again.
		optIn(t, st, s2.ID, c2.ID, true, 12)
		if err := h.agent.scanDigests(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(t, st)
		for _, m := range h.sms.Sent() {
			if m.ConversationID == "conv-crash" && !strings.HasPrefix(m.Text, "היי Crash") {
				t.Fatalf("the half-sent digest was sent again: %q", m.Text)
			}
		}
	})
}

// TestDigestPeriodicJob: the scan is a periodic River job the agent adds
// (it runs when the client starts), and a disabled agent claims nothing.
func TestDigestPeriodicJob(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		s, c := digestCoach(t, st, "Periodic", "0504000001", 1, "")
		optIn(t, st, s.ID, c.ID, true, 11)
		var opts Options
		newHarness(t, st, func(o *Options) { opts = *o })
		waitFor(t, "the periodic digest scan", func() bool { return digestState(t, st, c.ID, digestDay) == store.DigestSkippedWindow })

		opts.SmartSendKey = ""
		off, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		s2, c2 := digestCoach(t, st, "Disabled", "0504000002", 1, "")
		optIn(t, st, s2.ID, c2.ID, true, 11)
		if err := off.scanDigests(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := digestState(t, st, c2.ID, digestDay); got != "" {
			t.Errorf("a disabled agent claimed a digest: %q", got)
		}
	})
}

func TestDigestDue(t *testing.T) {
	t.Parallel()
	jer, err := time.LoadLocation("Asia/Jerusalem")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		utc  string
		hour int
		day  string
		due  bool
	}{
		{"2026-03-10T05:59:00Z", 8, "2026-03-10", false}, // 07:59
		{"2026-03-10T06:00:00Z", 8, "2026-03-10", true},  // 08:00
		{"2026-03-10T08:59:00Z", 8, "2026-03-10", true},  // 10:59
		{"2026-03-10T09:00:00Z", 8, "2026-03-10", false}, // 11:00: too late today
		{"2026-03-10T21:30:00Z", 23, "2026-03-10", true}, // 23:30
		{"2026-03-10T22:30:00Z", 23, "2026-03-11", false},
		{"2026-07-10T05:00:00Z", 8, "2026-07-10", true}, // summer time: 08:00
		{"2026-03-09T22:00:00Z", 0, "2026-03-10", true}, // midnight
	} {
		now, _ := time.Parse(time.RFC3339, c.utc)
		day, due := digestDue(now, jer, c.hour)
		if day != c.day || due != c.due {
			t.Errorf("%s hour %d: %s %v, want %s %v", c.utc, c.hour, day, due, c.day, c.due)
		}
	}
}

// TestDigestCommand: the coach sets her digest from WhatsApp, through the
// lane as her, without a model call; anything else goes to the model.
func TestDigestCommand(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		ctx := context.Background()
		s, c := digestCoach(t, st, "Cmd", "0505000001", 1, "")
		h.send("972505000001", "conv-cmd", "שלום") // the welcome
		h.waitIdle()
		models := len(h.llm.Requests())

		h.send("972505000001", "conv-cmd", " בוקר 07:00 ")
		h.waitIdle()
		got, err := st.Digests().DigestSetting(ctx, s.ID, c.ID)
		if err != nil || !got.Enabled || got.Hour != 7 {
			t.Fatalf("after the command: %+v %v", got, err)
		}
		sent := h.sms.Sent()
		if last := sent[len(sent)-1].Text; !strings.Contains(last, "07:00") || !strings.Contains(last, "בוקר כבוי") {
			t.Errorf("reply %q", last)
		}
		h.send("972505000001", "conv-cmd", "בוקר כבוי")
		h.waitIdle()
		if got, _ := st.Digests().DigestSetting(ctx, s.ID, c.ID); got.Enabled || got.Hour != 7 {
			t.Fatalf("after turning it off: %+v", got)
		}
		if n := len(h.llm.Requests()); n != models {
			t.Errorf("the commands asked the model %d times", n-models)
		}
		for _, text := range []string{"בוקר 24", "בוקר טוב", "בוקר 7 ו-8"} {
			if _, _, ok := digestCommand(text); ok {
				t.Errorf("%q read as a command", text)
			}
		}
	})
}
