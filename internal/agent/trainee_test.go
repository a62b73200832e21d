package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/tools"
)

// traineeEnv is a studio with a coach and two trainees, Dana and Noa,
// each with her own phone, and a studio key the coach's tools use.
type traineeEnv struct {
	*harness
	studio    domain.Studio
	coach     domain.Coach
	dana, noa domain.Trainee
	coachLane *laneclient.Client
	key       string
}

const (
	danaPhone     = "972501234567"
	noaPhone      = "972507654321"
	strangerPhone = "972509999999"
)

func newTraineeEnv(t *testing.T, st store.Store, opts ...harnessOption) *traineeEnv {
	t.Helper()
	h := newHarness(t, st, opts...)
	s, coach := studioWithCoach(t, st, "Studio", "Omer", "050-111-2222", time.Now())
	ss := st.Studio(s.ID)
	e := &traineeEnv{harness: h, studio: s, coach: coach}
	e.dana = domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: "+" + danaPhone, Status: "active", CoachIDs: []string{coach.ID}}
	e.noa = domain.Trainee{FirstName: "נועה", LastName: "כהן", Phone: "+" + noaPhone, Status: "active"}
	for _, tr := range []*domain.Trainee{&e.dana, &e.noa} {
		if err := ss.CreateTrainee(context.Background(), tr); err != nil {
			t.Fatal(err)
		}
	}
	e.key = auth.NewKey()
	if err := st.CreateAPIKey(context.Background(), &domain.APIKey{StudioID: s.ID, Name: "coach tools", Prefix: auth.Display(e.key), Hash: auth.Hash(e.key)}); err != nil {
		t.Fatal(err)
	}
	e.coachLane = laneclient.New("http://perform.internal", laneclient.HandlerTransport(areas.Lane(lane.Options{Store: st, Logger: quietLogger()})), domain.SourceAPI)
	return e
}

func (e *traineeEnv) turnOn(on bool) {
	e.t.Helper()
	if _, err := store.PatchStudioSettings(context.Background(), e.st, e.studio.ID, map[string]any{"traineeAssistant": on}); err != nil {
		e.t.Fatal(err)
	}
}

// say sends text from phone, waits for the reply and returns what was sent back.
func (e *traineeEnv) say(phone, text string) []string {
	e.t.Helper()
	before := len(e.sms.Sent())
	e.send(phone, "conv-"+phone, text)
	e.waitIdle()
	var out []string
	for _, m := range e.sms.Sent()[before:] {
		out = append(out, m.Text)
	}
	return out
}

// coachGet is a GET of the coach's tools through the lane.
func (e *traineeEnv) coachGet(path string, q url.Values) map[string]any {
	e.t.Helper()
	raw, err := e.coachLane.Do(context.Background(), e.key, tools.Request{Method: "GET", Path: path, Query: q})
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// sessions are Dana's completed sessions as her coach's tools list them.
func (e *traineeEnv) completed(trainee string) int {
	e.t.Helper()
	list := e.coachGet("/trainees/"+trainee+"/sessions", url.Values{"status": {"completed"}})
	n, _ := list["total"].(float64)
	return int(n)
}

func joined(texts []string) string { return strings.Join(texts, "\n---\n") }

// The workout of the issue: a trainee texts it, it becomes one workout with
// sets that her coach's tools and the roster see, "undo" takes it back, and
// nothing of another trainee is reachable.
func TestTraineeLogsAWorkoutByWhatsApp(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		workout := map[string]any{"sport": "strength", "exercises": []map[string]any{
			{"exerciseId": "back-squat", "sets": slices.Repeat([]map[string]any{{"reps": 5, "loadKg": 90}}, 5)},
			{"exerciseId": "bench-press", "sets": slices.Repeat([]map[string]any{{"reps": 8, "loadKg": 65}}, 3)},
		}}
		var toolResults []string
		e.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
			if res := req.ToolResults(); len(res) > 0 {
				toolResults = append(toolResults, res[0].ResultText())
				return fakes.Text("רשמתי 💪")
			}
			switch req.LastUserText() {
			case "squats 5x5 at 90, bench 3x8 at 65":
				return fakes.CallTool("log_workout", workout)
			case "show me Noa's session":
				return fakes.CallTool("get_session_details", map[string]any{"sessionId": "ses_00000000000000000000000000"})
			}
			return fakes.Text("תשובה")
		})

		// Off by default: no data, the model never asked.
		if got := e.say(danaPhone, "squats 5x5 at 90, bench 3x8 at 65"); joined(got) != msgNotLinked {
			t.Fatalf("with the assistant off Dana got %q", got)
		}
		e.turnOn(true)
		// First contact: what is kept and for whom (her appointments too,
		// which it books, moves and cancels); nothing logged until yes.
		if got := joined(e.say(danaPhone, "squats 5x5 at 90, bench 3x8 at 65")); !strings.Contains(got, `הסטודיו "Studio"`) || !strings.Contains(got, `ענו "כן"`) ||
			!strings.Contains(got, "התורים שלך") {
			t.Fatalf("first contact: %q", got)
		}
		if got := joined(e.say(danaPhone, "כן")); got != msgTraineeWelcome {
			t.Fatalf("consent: %q", got)
		}
		if n := len(e.llm.Requests()); n != 0 {
			t.Fatalf("the model was asked %d times before she agreed", n)
		}

		got := joined(e.say(danaPhone, "squats 5x5 at 90, bench 3x8 at 65"))
		for _, want := range []string{"רשמתי 💪", "✅ נרשם אימון", "5×5 ב-90 ק\"ג", "3×8 ב-65 ק\"ג"} {
			if !strings.Contains(got, want) {
				t.Errorf("the reply lacks %q: %q", want, got)
			}
		}
		// Her brief and tools: the trainee's, with no plan changes.
		req := e.llm.Requests()[0]
		if !strings.Contains(req.SystemText(), "מתאמן/ת של הסטודיו") {
			t.Errorf("the brief is not the trainee's: %.200s", req.SystemText())
		}
		for _, tool := range req.Tools {
			if tool.Name == "modify_training_session" || tool.Name == "update_trainee" {
				t.Errorf("a trainee's turn offers %s", tool.Name)
			}
		}
		// One workout with its 8 sets, seen by her coach's tools and roster.
		if n := e.completed(e.dana.ID); n != 1 {
			t.Fatalf("the coach sees %d completed sessions of Dana, want 1", n)
		}
		list := e.coachGet("/trainees/"+e.dana.ID+"/sessions", url.Values{"status": {"completed"}})
		row := list["items"].([]any)[0].(map[string]any)
		if sets, _ := row["totals"].(map[string]any)["sets"].(float64); sets != 8 {
			t.Errorf("the workout has %v sets, want 8: %v", row["sets"], row)
		}
		roster := e.coachGet("/roster", url.Values{"question": {"trained"}})
		if !strings.Contains(mustJSON(t, roster), e.dana.ID) {
			t.Errorf("the roster's trained does not hold Dana: %v", roster)
		}
		// Audited as hers, from WhatsApp.
		waitFor(t, "the audit of Dana's workout from whatsapp", func() bool {
			events, err := st.ListAudit(context.Background(), e.studio.ID, store.Page{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events.Items {
				if strings.HasSuffix(ev.Route, "/trainees/{id}/workouts") && ev.Source == domain.SourceWhatsApp && ev.Status == 201 {
					return true
				}
			}
			return false
		})

		// Another trainee's record is not found, as for her own grant.
		e.say(danaPhone, "show me Noa's session")
		if last := toolResults[len(toolResults)-1]; !strings.Contains(last, "not found") && !strings.Contains(last, "No session") {
			t.Errorf("another session answered %q", last)
		}

		// Undo withdraws the workout, once.
		if got := joined(e.say(danaPhone, "בטל")); !strings.HasPrefix(got, "↩️ בוטל: נרשם אימון") {
			t.Errorf("undo answered %q", got)
		}
		if n := e.completed(e.dana.ID); n != 0 {
			t.Errorf("after undo the coach sees %d sessions", n)
		}
		if got := joined(e.say(danaPhone, "undo")); got != msgNothingToUndo {
			t.Errorf("a second undo answered %q", got)
		}

		// Stop is honoured at once: nothing of hers is read or written.
		calls := len(e.llm.Requests())
		if got := joined(e.say(danaPhone, "squats 5x5 at 90, bench 3x8 at 65\nעצור")); got != msgTraineeStopped {
			t.Errorf("stop answered %q", got)
		}
		if got := joined(e.say(danaPhone, "squats 5x5 at 90, bench 3x8 at 65")); !strings.Contains(got, `ענו "כן"`) {
			t.Errorf("after stop she got %q, want the consent question", got)
		}
		if n := len(e.llm.Requests()); n != calls || e.completed(e.dana.ID) != 0 {
			t.Errorf("after stop the model was asked %d more times and %d sessions were logged", len(e.llm.Requests())-calls, e.completed(e.dana.ID))
		}

		// A stranger's phone gets no data.
		if got := joined(e.say(strangerPhone, "squats 5x5 at 90, bench 3x8 at 65")); got != msgNotLinked {
			t.Errorf("a stranger got %q", got)
		}
		// The studio turns it off: Noa (who agreed) gets nothing either.
		e.say(noaPhone, "כן")
		e.turnOn(false)
		if got := joined(e.say(noaPhone, "squats 5x5 at 90, bench 3x8 at 65")); got != msgNotLinked || e.completed(e.noa.ID) != 0 {
			t.Errorf("with the assistant off Noa got %q", got)
		}

		// Her turns are costed as a trainee's.
		usage, err := st.Agent().UsageByStudio(context.Background(), e.clock.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(usage) != 1 || usage[0].Role != "trainee" || usage[0].StudioID != e.studio.ID {
			t.Errorf("usage: %+v, want one row of the studio's trainees", usage)
		}
	})
}

// A phone that is a coach's and a trainee's stays the coach's until she
// chooses her trainee record, and goes back when she chooses the coach's.
func TestACoachWhoTrainsChoosesHerRecord(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st)
		e.turnOn(true)
		coachPhone := "972501112222"
		// The coach trains in her own studio too.
		me := domain.Trainee{FirstName: "Omer", LastName: "Coach", Phone: "+" + coachPhone, Status: "active"}
		if err := st.Studio(e.studio.ID).CreateTrainee(context.Background(), &me); err != nil {
			t.Fatal(err)
		}
		seedHistory(t, e.harness, "+"+coachPhone)
		if got := joined(e.say(coachPhone, "מה נשמע")); got != "תשובה" {
			t.Fatalf("the coach's phone got %q, want the coach's model reply", got)
		}
		if brief := e.llm.Requests()[0].SystemText(); !strings.Contains(brief, "למאמני כושר") {
			t.Fatalf("the coach's turn had the brief %.100s", brief)
		}
		got := joined(e.say(coachPhone, SwitchStudioCommand))
		if !strings.Contains(got, "1. Studio (מאמן/ת: Omer)") || !strings.Contains(got, "2. Studio (מתאמן/ת)") {
			t.Fatalf("the switch listed %q", got)
		}
		if got := joined(e.say(coachPhone, "2")); !strings.Contains(got, `"Studio"`) {
			t.Fatalf("choosing her trainee record answered %q", got)
		}
		if got := joined(e.say(coachPhone, "מה נשמע")); !strings.Contains(got, `ענו "כן"`) {
			t.Fatalf("as a trainee she got %q, want the consent question", got)
		}
		e.say(coachPhone, SwitchStudioCommand)
		e.say(coachPhone, "1")
		calls := len(e.llm.Requests())
		e.say(coachPhone, "מה נשמע")
		if reqs := e.llm.Requests(); len(reqs) != calls+1 || !strings.Contains(reqs[calls].SystemText(), "למאמני כושר") {
			t.Fatalf("back as the coach, the turn was not the coach's")
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Trainees of different studios share the cached prefix (their tools and
// their rules, the same bytes for every trainee of every studio); who she
// is and her studio come after it, and the second trainee reads what the
// first wrote.
func TestTraineesShareTheirCachedPrefix(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storetestSQLite(t))
	var phones []string
	for i, name := range []string{"Alpha Gym", "Beta Fit"} {
		s := domain.Studio{Name: name, Slug: fmt.Sprintf("cache-%d", i), Settings: json.RawMessage(`{"traineeAssistant":true}`)}
		if err := h.st.CreateStudio(context.Background(), &s); err != nil {
			t.Fatal(err)
		}
		tr := domain.Trainee{FirstName: []string{"Dana", "Noa"}[i], LastName: "X", Phone: fmt.Sprintf("+97250333000%d", i), Status: "active"}
		if err := h.st.Studio(s.ID).CreateTrainee(context.Background(), &tr); err != nil {
			t.Fatal(err)
		}
		if err := h.st.Agent().SetTraineeConsent(context.Background(), s.ID, tr.ID, phoneKey(tr.Phone), true, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
		phones = append(phones, strings.TrimPrefix(tr.Phone, "+"))
	}
	for _, p := range phones {
		h.send(p, "c-"+p, "שקילה 70")
		h.waitIdle()
	}
	reqs := h.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls; want 2", len(reqs))
	}
	a, b := layoutOf(t, reqs[0]), layoutOf(t, reqs[1])
	if string(a.Tools) != string(b.Tools) || string(a.System[0]) != string(b.System[0]) || reqs[0].System[0].Text != traineeRules {
		t.Fatal("the cached prefix differs between trainees of two studios")
	}
	if !strings.Contains(reqs[0].System[1].Text, "Dana") || !strings.Contains(reqs[1].System[1].Text, "Beta Fit") {
		t.Fatalf("the context lacks her name or studio: %q / %q", reqs[0].System[1].Text, reqs[1].System[1].Text)
	}
	if got := breakpoints(reqs[0]); len(got) == 0 || got[0] != "system[0]:1h" {
		t.Fatalf("breakpoints %v; want the rules' 1 h one first", got)
	}
	if reqs[1].Usage.CacheReadInputTokens == 0 || reqs[1].Usage.CacheReadInputTokens != reqs[0].Usage.CacheCreation.Ephemeral1h {
		t.Fatalf("usage %+v then %+v; want the second trainee to read the first's write", reqs[0].Usage, reqs[1].Usage)
	}
}

// A flood of trainee messages, 2,000 from 200 phones of two studios in
// bursts of 10: every message is stored, each phone's burst gets its
// replies, every weigh-in lands on the writer's own record, and no reply
// names anyone but the trainee it went to. Under -race, which makes each
// turn several times slower, it runs on SQLite only with 10 phones a
// studio (200 messages, still eight senders at once); go test without
// -race runs the whole flood on both engines.
func TestTraineeFloodStaysWithEachPerson(t *testing.T) {
	t.Parallel()
	engines := storetest.Engines(t)
	if raceOn {
		engines = map[string]func(*testing.T) store.Store{store.EngineSQLite: engines[store.EngineSQLite]}
	}
	for name, open := range engines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			flood(t, open(t))
		})
	}
}

func flood(t *testing.T, st store.Store) {
	perStudio := 100 // two studios' trainees, each sending a burst of 10
	if raceOn {
		perStudio = 10
	}
	h := newHarness(t, st, func(o *Options) { o.Debounce = 1500 * time.Millisecond })
	ctx := context.Background()
	names := map[string]string{} // phone → her first name
	owner := map[string]string{} // trainee id → phone
	for si := range 2 {
		s := domain.Studio{Name: fmt.Sprintf("Flood %d", si), Slug: fmt.Sprintf("flood-%d", si), Settings: json.RawMessage(`{"traineeAssistant":true}`)}
		if err := st.CreateStudio(ctx, &s); err != nil {
			t.Fatal(err)
		}
		for i := range perStudio {
			tr := domain.Trainee{FirstName: fmt.Sprintf("T%d-%03d", si, i), LastName: "Flood", Phone: fmt.Sprintf("+972524%d%05d", si, i), Status: "active"}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			p := strings.TrimPrefix(tr.Phone, "+")
			if err := st.Agent().SetTraineeConsent(ctx, s.ID, tr.ID, tr.Phone, true, h.clock.Now()); err != nil {
				t.Fatal(err)
			}
			names[p], owner[tr.ID] = tr.FirstName, p
		}
	}
	// The model weighs her in once per burst and greets the person its
	// brief names.
	h.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
		name := strings.Fields(req.System[1].Text)[3] // "את/ה מדבר/ת עם NAME, …"
		if len(req.ToolResults()) > 0 {
			return fakes.Text("רשמתי, " + strings.TrimSuffix(name, ","))
		}
		return fakes.CallTool("log_weight", map[string]any{"weightKg": 70})
	})
	var phones []string
	for p := range names {
		phones = append(phones, p)
	}
	slices.Sort(phones)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(phones); i += 8 {
				for j := range 10 {
					h.send(phones[i], "c-"+phones[i], fmt.Sprintf("שקילה %d", 70+j))
				}
			}
		}()
	}
	wg.Wait()
	waitJobsIdleFor(t, st, 5*time.Minute)

	var stored int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_messages`).Scan(&stored); err != nil || stored != 10*len(phones) {
		t.Fatalf("%d messages stored (%v), want %d", stored, err, 10*len(phones))
	}
	replies := map[string][]string{}
	for _, m := range h.sms.Sent() {
		replies[strings.TrimPrefix(m.ConversationID, "c-")] = append(replies[strings.TrimPrefix(m.ConversationID, "c-")], m.Text)
	}
	// A reply per turn, and the weigh-in's echo once: a burst a loaded run
	// split in two makes two turns whose second repeats the first's
	// weigh-in, answered from it and not echoed again.
	turnsOf := map[string]int{}
	for _, p := range phones {
		got := replies[p]
		echoes := 0
		for _, r := range got {
			switch {
			case strings.HasPrefix(r, "✅"):
				echoes++
			case r != "רשמתי, "+names[p]:
				t.Fatalf("%s (%s) was told %q", p, names[p], r)
			default:
				turnsOf[p]++
			}
		}
		if turnsOf[p] == 0 || echoes != 1 {
			t.Fatalf("%s got %d replies and %d echoes, want a reply per turn and one echo: %q", p, turnsOf[p], echoes, got)
		}
	}
	// Each weigh-in is on the record of the phone that wrote it, one per
	// turn that phone had.
	rows, err := st.DB().Query(`SELECT trainee_id, count(*) FROM weights GROUP BY trainee_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		p, ok := owner[id]
		if !ok || n < 1 || n > turnsOf[p] {
			t.Fatalf("trainee %s has %d weigh-ins; her phone %q had %d turns", id, n, p, turnsOf[p])
		}
		total += n
	}
	t.Logf("%d messages from %d phones: %d turns", stored, len(phones), total)
}

// A phone on trainee records of two studios that turned the assistant on
// chooses which, and then talks to that studio only.
func TestTraineeOnTwoStudiosChooses(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		ctx := context.Background()
		var studios []domain.Studio
		for i, name := range []string{"Alpha Gym", "Beta Fit", "Gamma Off"} {
			settings := json.RawMessage(`{"traineeAssistant":true}`)
			if i == 2 {
				settings = nil // has not turned it on: never offered
			}
			s := domain.Studio{Name: name, Slug: fmt.Sprintf("two-%d", i), Settings: settings}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			tr := domain.Trainee{FirstName: "Dana", LastName: "Two", Phone: "+972526666666", Status: "active"}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			studios = append(studios, s)
		}
		e := &traineeEnv{harness: h}
		got := joined(e.say("972526666666", "היי"))
		if !strings.Contains(got, "1. Alpha Gym (מתאמן/ת)") || !strings.Contains(got, "2. Beta Fit (מתאמן/ת)") || strings.Contains(got, "Gamma") {
			t.Fatalf("the question listed %q", got)
		}
		if got := joined(e.say("972526666666", "2")); !strings.Contains(got, `"Beta Fit"`) {
			t.Fatalf("choosing 2 answered %q", got)
		}
		if got := joined(e.say("972526666666", "היי")); !strings.Contains(got, `הסטודיו "Beta Fit"`) {
			t.Fatalf("after choosing Beta Fit she got %q", got)
		}
		link, err := st.Agent().TraineeLink(ctx, "+972526666666")
		if err != nil || link.StudioID != studios[1].ID {
			t.Fatalf("the phone is linked to %+v (%v), want Beta Fit", link, err)
		}
	})
}
