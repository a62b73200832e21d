package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// The receipts read the lane's real answers: each proposal line and each
// trainee receipt is built from what the real lane answered, and
// must carry the values the call sent or the lane chose. A field the
// receipt reads that the lane no longer answers under that name (or that a
// trainee's allow list drops) fails here, not in a coach's chat.

// answersEnv is a studio on a real lane: a coach, a trainee, and what the
// coach's writes name (a plan, a program template, a form, a task).
type answersEnv struct {
	t        *testing.T
	st       store.Store
	client   *laneclient.Client
	key      string
	coach    domain.Coach
	trainee  domain.Trainee
	product  domain.Product
	template domain.ProgramTemplate
	form     domain.FormTemplate
	task     domain.Task
}

func newAnswersEnv(t *testing.T, st store.Store) *answersEnv {
	t.Helper()
	ctx := context.Background()
	s, coach := studioWithCoach(t, st, "Studio", "Omer", "050-111-2222", time.Now())
	ss := st.Studio(s.ID)
	e := &answersEnv{t: t, st: st, coach: coach}
	e.trainee = domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: "+972501234567", Status: "active", CoachIDs: []string{coach.ID}}
	if err := ss.CreateTrainee(ctx, &e.trainee); err != nil {
		t.Fatal(err)
	}
	price, days := money.Money{Minor: 30000, Currency: "ILS"}, 30
	e.product = domain.Product{Name: "חודשי", Price: &price, DurationDays: &days, Currency: "ILS", Active: true}
	if err := ss.CreateProduct(ctx, &e.product); err != nil {
		t.Fatal(err)
	}
	mon, thu := 1, 4
	week := domain.ProgramWeek{Days: []domain.ProgramDay{{Weekday: &mon, Title: "A", Sport: "strength"}, {Weekday: &thu, Title: "B", Sport: "strength"}}}
	e.template = domain.ProgramTemplate{Name: "כוח בסיסי", Structure: &domain.ProgramStructure{Phases: []domain.ProgramPhase{{Name: "Base", Weeks: []domain.ProgramWeek{week, week}}}}}
	if err := ss.CreateProgramTemplate(ctx, &e.template); err != nil {
		t.Fatal(err)
	}
	e.form = domain.FormTemplate{Name: "שאלון שבועי", Fields: []domain.FormField{{Key: "sleep", Label: "שינה", Type: "number"}}}
	if err := ss.CreateFormTemplate(ctx, &e.form); err != nil {
		t.Fatal(err)
	}
	e.task = domain.Task{Title: "להתקשר לדנה", ClientID: &e.trainee.ID, CoachID: &coach.ID}
	if err := ss.CreateTask(ctx, &e.task); err != nil {
		t.Fatal(err)
	}
	e.key = auth.NewKey()
	if err := st.CreateAPIKey(ctx, &domain.APIKey{StudioID: s.ID, Name: "assistant", Prefix: auth.Display(e.key), Hash: auth.Hash(e.key)}); err != nil {
		t.Fatal(err)
	}
	// In process, as perform serve wires it: the lane reads whom the call
	// speaks for (auth.WithCoach, auth.WithTrainee) from its context.
	e.client = laneclient.New("http://perform.internal", laneclient.HandlerTransport(areas.Lane(lane.Options{Store: st, Logger: quietLogger()})), domain.SourceWhatsApp)
	return e
}

// workingHours gives the coach every day from 07:00 to 21:00.
func (e *answersEnv) workingHours() {
	e.t.Helper()
	var hours []map[string]any
	for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		hours = append(hours, map[string]any{"day": d, "from": "07:00", "to": "21:00"})
	}
	if _, err := e.client.Do(context.Background(), e.key, tools.Request{Method: "PUT", Path: "/coaches/" + e.coach.ID + "/hours", Body: map[string]any{"hours": hours}}); err != nil {
		e.t.Fatal(err)
	}
}

// run calls tool as the assistant does: a coach's proposal as a dry run
// speaking for the coach, a trainee's write for real speaking for her.
func (e *answersEnv) run(ctx context.Context, set []tools.Tool, tool string, args map[string]any, dry bool) json.RawMessage {
	e.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	r := executor.New(e.client, set).Run(ctx, executor.Call{Tool: tool, Args: raw, APIKey: e.key, DryRun: dry})
	if r.Outcome != executor.OK {
		e.t.Fatalf("%s answered %s: %s", tool, r.Outcome, r.Sentence)
	}
	return r.Data
}

// day is the local day n days from today, as sent and as a receipt shows it.
func day(n int) (iso, shownAs string) {
	d := time.Now().In(jerusalem).AddDate(0, 0, n)
	return d.Format(time.DateOnly), d.Format("2.1.2006")
}

// proposalCase is one proposal tool: its arguments and what its line must say.
type proposalCase struct {
	tool string
	args map[string]any
	want []string
}

func (e *answersEnv) proposalCases() []proposalCase {
	past, pastShown := day(-2)
	soon, soonShown := day(3)
	later, laterShown := day(10)
	return []proposalCase{
		{"log_weight", map[string]any{"traineeId": e.trainee.ID, "weightKg": 72.4, "recordedAt": past + "T09:00:00Z"},
			[]string{"לרשום לדנה לוי משקל 72.4 ק\"ג (" + pastShown + ")"}},
		{"assign_plan", map[string]any{"traineeId": e.trainee.ID, "productId": e.product.ID, "startedOn": soon},
			[]string{"להתחיל לדנה לוי את המנוי \"חודשי\" ב-" + soonShown, ", עד ", ", במחיר ₪300.00"}},
		{"assign_program", map[string]any{"traineeId": e.trainee.ID, "templateId": e.template.ID, "startsOn": soon},
			[]string{"לתת לדנה לוי את תוכנית האימון \"כוח בסיסי\" החל מ-" + soonShown, " אימונים מתוכננים, עד "}},
		{"send_form", map[string]any{"traineeId": e.trainee.ID, "formTemplateId": e.form.ID, "dueAt": later + "T09:00:00Z", "notify": false},
			[]string{"לשלוח לדנה לוי את השאלון \"שאלון שבועי\" להגשה עד " + laterShown, "(בלי הודעה למתאמן)"}},
		{"update_task", map[string]any{"taskId": e.task.ID, "status": "snoozed", "snoozeUntil": later + "T09:00:00Z", "priority": 3},
			[]string{"לעדכן את המשימה \"להתקשר לדנה\": לדחות עד " + laterShown + ", עדיפות 3"}},
		{"update_trainee", map[string]any{"traineeId": e.trainee.ID, "goal": "ריצת 10 ק\"מ", "coachIds": []string{e.coach.ID}},
			[]string{"לעדכן את הפרטים של דנה לוי: מטרה ← ריצת 10 ק\"מ, מאמנים ← Omer"}},
		{"log_workout", map[string]any{"traineeId": e.trainee.ID, "date": past, "sport": "strength", "title": "רגליים", "durationMin": 45},
			[]string{"לרשום לדנה לוי אימון \"רגליים\" (כוח) ב-" + pastShown + " (45 דק')"}},
		{"create_planned_session", map[string]any{"traineeId": e.trainee.ID, "date": soon, "sport": "running", "startTime": "18:30", "durationMin": 40},
			[]string{"לתכנן לדנה לוי אימון ריצה ב-" + soonShown + " בשעה 18:30 (40 דק') (המתאמן לא מקבל הודעה)"}},
		{"book_appointment", map[string]any{"traineeId": e.trainee.ID, "day": soon, "time": "10:00", "coachId": e.coach.ID},
			[]string{"לקבוע תור לדנה לוי ב-" + soonShown + " 10:00"}},
	}
}

// Each proposal line a coach confirms is built from the lane's dry run and
// carries what the write would do.
func TestProposalLinesReadTheLanesAnswers(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newAnswersEnv(t, st)
		ctx := auth.WithCoach(context.Background(), e.coach.ID)
		e.workingHours()
		cases := e.proposalCases()
		for tool := range proposalLines {
			if !slices.ContainsFunc(cases, func(c proposalCase) bool { return c.tool == tool }) {
				t.Errorf("%s has a proposal line and no case here", tool)
			}
		}
		for _, c := range cases {
			data := e.run(ctx, tools.AgentSubset(), c.tool, c.args, true)
			var dry dryRunAnswer
			if err := json.Unmarshal(data, &dry); err != nil || !dry.DryRun {
				t.Fatalf("%s: no dry-run answer (%v): %s", c.tool, err, data)
			}
			args, _ := json.Marshal(c.args)
			got, err := summarize(c.tool, args, dry)
			if err != nil {
				t.Fatalf("%s: %v (the lane answered %s)", c.tool, err, data)
			}
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("%s: the proposal %q lacks %q", c.tool, got, want)
				}
			}
		}
	})
}

// receiptCase is one trainee write: its arguments, what its receipt must
// say, and the kind of record undo withdraws ("" for none).
type receiptCase struct {
	tool   string
	args   map[string]any
	want   []string
	record ids.Kind
}

// Each receipt a trainee is sent is built from the lane's answer to her
// write, scrubbed as her answers are, and names the record undo withdraws.
func TestTraineeReceiptsReadTheLanesAnswers(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newAnswersEnv(t, st)
		past, pastShown := day(-1)
		coach := auth.WithCoach(context.Background(), e.coach.ID)
		sent := e.run(coach, tools.AgentSubset(), "send_form", map[string]any{"traineeId": e.trainee.ID, "formTemplateId": e.form.ID, "notify": false}, false)
		var assignment domain.FormAssignment
		if err := json.Unmarshal(sent, &assignment); err != nil || assignment.ID == "" {
			t.Fatalf("send_form answered %s (%v)", sent, err)
		}
		soon, soonShown := day(3)
		later, laterShown := day(4)
		e.workingHours()
		var booked struct{ ID string }
		if err := json.Unmarshal(e.run(coach, tools.All(), "book_appointment", map[string]any{"traineeId": e.trainee.ID, "day": later, "time": "12:00", "coachId": e.coach.ID}, false), &booked); err != nil || booked.ID == "" {
			t.Fatalf("book_appointment: %v", err)
		}
		var moving struct{ ID string }
		if err := json.Unmarshal(e.run(coach, tools.All(), "book_appointment", map[string]any{"traineeId": e.trainee.ID, "day": later, "time": "14:00", "coachId": e.coach.ID}, false), &moving); err != nil || moving.ID == "" {
			t.Fatalf("book_appointment: %v", err)
		}
		cases := []receiptCase{
			{"log_weight", map[string]any{"weightKg": 70.4, "recordedAt": past + "T09:00:00Z"}, []string{"✅ נרשמה שקילה: 70.4 ק\"ג (" + pastShown + ")"}, ids.Weight},
			{"log_workout", map[string]any{"date": past, "sport": "strength", "exercises": []map[string]any{
				{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 90}, {"reps": 5, "loadKg": 90}}},
			}}, []string{"✅ נרשם אימון כוח ב-" + pastShown + ": סקוואט עם מוט על הגב 2×5 ב-90 ק\"ג"}, ids.Session},
			{"daily_check_in", map[string]any{"readiness": 7, "sleepHours": 6.5, "stress": 2}, []string{"✅ צ'ק-אין ל-", "מוכנות 7", "שינה (שעות) 6.5", "לחץ 2"}, ids.CheckIn},
			{"daily_check_in", map[string]any{"mood": 4}, []string{"מצב רוח 4", "(עודכן)"}, ""},
			{"log_measurement", map[string]any{"waistCm": 80.5, "restingHr": 55}, []string{"✅ נרשמה מדידה: מותניים 80.5 ס\"מ, דופק במנוחה 55"}, ids.Measurement},
			{"answer_form", map[string]any{"assignmentId": assignment.ID, "answers": []map[string]any{{"key": "sleep", "value": "7"}}}, []string{"✅ התשובות לשאלון נשלחו"}, ids.FormResponse},
			{"record_injury", map[string]any{"area": "knee", "severity": 2}, []string{"✅ נרשמה פציעה (knee)"}, ""},
			{"book_appointment", map[string]any{"day": soon, "time": "11:00"}, []string{"📅 נקבע תור ל-" + soonShown + " 11:00"}, ""},
			{"cancel_appointment", map[string]any{"appointmentId": booked.ID}, []string{"❌ בוטל התור של " + laterShown + " 12:00"}, ""},
			{"move_appointment", map[string]any{"appointmentId": moving.ID, "day": later, "time": "16:00"}, []string{"🔁 התור הועבר ל-" + laterShown + " 16:00"}, ""},
		}
		for tool := range receipts {
			if !slices.ContainsFunc(cases, func(c receiptCase) bool { return c.tool == tool }) {
				t.Errorf("%s has a receipt and no case here", tool)
			}
		}
		ctx := auth.WithTrainee(context.Background(), e.trainee.ID)
		for _, c := range cases {
			data := e.run(ctx, tools.TraineeAssistantSubset(), c.tool, c.args, false)
			line, record, err := echo(c.tool, data, builtInHebrew)
			if err != nil {
				t.Fatalf("%s: %v (the lane answered %s)", c.tool, err, data)
			}
			for _, want := range c.want {
				if !strings.Contains(line, want) {
					t.Errorf("%s: the receipt %q lacks %q (the lane answered %s)", c.tool, line, want, data)
				}
			}
			if c.record == "" && record != "" || c.record != "" && !ids.Is(record, c.record) {
				t.Errorf("%s: undo would withdraw %q; want a %s", c.tool, record, c.record)
			}
		}
	})
}

// builtInHebrew names the catalogue's exercises in Hebrew.
func builtInHebrew(id string) string {
	e, _ := exercises.Get(id)
	return e.NameHe
}

// The arguments a proposal line reads are the tool's: each is a property
// of its input schema, so a field renamed in the lane's input fails here.
func TestProposalLinesReadTheToolsArguments(t *testing.T) {
	read := map[string][]string{
		"send_form":   {"traineeId", "notify"},
		"update_task": {"taskId", "status", "snoozeUntil", "priority"},
	}
	for _, f := range traineeFields {
		read["update_trainee"] = append(read["update_trainee"], f.key)
	}
	for tool := range proposalLines {
		if tool != "update_task" {
			read[tool] = append(read[tool], "traineeId")
		}
	}
	for tool, fields := range read {
		spec, ok := tools.ByName(tool)
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		for _, f := range fields {
			if spec.InputSchema.Properties[f] == nil {
				t.Errorf("%s's line reads %s, which is not among its arguments", tool, f)
			}
		}
	}
}

// An answer that does not read as its route's type is an error the caller
// logs and says plainly, never a line with blanks.
func TestAnAnswerThatDoesNotReadIsAnError(t *testing.T) {
	bad := json.RawMessage(`{"id":"wgt_1","weightKg":"heavy","recordedAt":"yesterday"}`)
	if line, _, err := echo("log_weight", bad, nil); err == nil {
		t.Errorf("the receipt of an unreadable weigh-in is %q; want an error", line)
	}
	args := json.RawMessage(`{"traineeId":"trn_1","weightKg":72}`)
	if line, err := summarize("log_weight", args, dryRunAnswer{DryRun: true, Data: bad}); err == nil {
		t.Errorf("the proposal of an unreadable weigh-in is %q; want an error", line)
	}
	if got := unreadProposal("log_weight"); !strings.HasPrefix(got, "Log a weight") || !strings.Contains(got, "לא הצלחתי") {
		t.Errorf("the unreadable proposal reads %q", got)
	}
	if line, _, err := echo("log_feedback", nil, nil); err != nil || line != fixedReceipts["log_feedback"] {
		t.Errorf("a write whose answer no receipt reads is echoed %q (%v)", line, err)
	}
}

// garbledWeights is the lane with its answers to a weigh-in changed: the
// weight a string, as if the route's answer type had changed under the
// assistant.
type garbledWeights struct{ lane http.RoundTripper }

func (g garbledWeights) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.lane.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/weights") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body = regexp.MustCompile(`"weightKg":([0-9.]+)`).ReplaceAll(body, []byte(`"weightKg":"$1"`))
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// A trainee's write whose answer does not read as its route's type is
// stored, logged as an error, and echoed as stored without its details:
// never a line with blanks.
func TestAReceiptThatDoesNotReadSaysSo(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		logs := testkit.NewLogs()
		logs.Level = slog.LevelError
		e := newTraineeEnv(t, st, func(o *Options) {
			garbled := garbledWeights{lane: laneclient.HandlerTransport(areas.Lane(lane.Options{Store: st, Logger: quietLogger()}))}
			o.Lane = laneclient.New("http://perform.internal", garbled, domain.SourceAgent)
			o.Logger = logs.Logger()
		})
		e.turnOn(true)
		e.say(danaPhone, "היי")
		e.say(danaPhone, "כן")
		e.setScript(weighInScript)
		got := joined(e.say(danaPhone, "שקילה 70.4"))
		if !strings.Contains(got, msgUnreadReceipt) || strings.Contains(got, "נרשמה שקילה") {
			t.Fatalf("she was answered %q; want the receipt that says its details could not be shown", got)
		}
		if len(logs.Find(func(r testkit.Record) bool { return strings.Contains(r.Attr("err"), "the receipt of log_weight") })) != 1 {
			t.Fatalf("the unreadable answer was not logged once as an error; logged:\n%v", logs.Records())
		}
		var weights int
		if err := st.DB().QueryRow(`SELECT count(*) FROM weights`).Scan(&weights); err != nil || weights != 1 {
			t.Fatalf("%d weigh-ins stored (%v); want 1", weights, err)
		}
	})
}
