package tools

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/otherwise/perform/internal/ids"
)

var wantReads = []string{
	"search_trainees", "find_trainee_by_phone", "get_trainee", "list_trainee_programs",
	"list_trainee_form_responses", "list_trainee_weights", "list_trainee_subscriptions",
	"list_plans", "get_trainee_billing", "list_payments", "list_program_templates", "list_forms", "list_coaches", "list_tags", "list_tasks",
}

var wantWrites = []string{
	"create_trainee", "update_trainee", "assign_plan", "record_payment", "assign_program",
	"send_form", "create_task", "send_form_to_group", "assign_plan_to_group", "create_task_for_group", "draft_message", "update_task", "log_weight",
}

// The training memory's tools follow, in their groups' order (tools.go):
// sessions, health, exercises, insights. Every one is a read but these writes.
var (
	wantTrainingTools  = []string{"list_trainee_sessions", "get_session", "get_trainee_benchmarks", "log_workout", "create_planned_session", "modify_session", "swap_exercise_in_range", "draft_weekly_plan", "apply_weekly_plan", "list_trainee_checkins", "get_body_analysis", "record_injury", "update_training_profile", "search_exercises", "get_trainee_overview", "get_weekly_debrief", "get_coaching_insights", "needs_attention", "roster"}
	wantTrainingWrites = []string{"log_workout", "create_planned_session", "modify_session", "swap_exercise_in_range", "draft_weekly_plan", "apply_weekly_plan", "record_injury", "update_training_profile"}
	wantTrainingReads  = slices.DeleteFunc(slices.Clone(wantTrainingTools), func(n string) bool { return slices.Contains(wantTrainingWrites, n) })
)

func TestAllIsTheDocumentedSetInOrder(t *testing.T) {
	var names []string
	for _, tool := range All() {
		names = append(names, tool.Name)
		wantRead := slices.Contains(wantReads, tool.Name) || slices.Contains(wantTrainingReads, tool.Name)
		if tool.ReadOnly != wantRead {
			t.Errorf("%s: ReadOnly = %v, want %v", tool.Name, tool.ReadOnly, wantRead)
		}
		if tool.Title == "" || len(tool.Description) < 40 {
			t.Errorf("%s: needs a title and a description written for a model", tool.Name)
		}
		if tool.InputSchema.Type != "object" {
			t.Errorf("%s: input schema type %q, want object", tool.Name, tool.InputSchema.Type)
		}
		for name, p := range tool.InputSchema.Properties {
			// An argument whose values the schema lists (enum), names
			// (format) or bounds needs no words; every other one does.
			// A number's bounds say it too; limit and offset need neither,
			// the instructions say once how lists page (limit 1 to 200,
			// offset from 0).
			paging := name == "limit" || name == "offset"
			if p.Description == "" && len(p.Enum) == 0 && p.Format == "" && p.Maximum == nil && p.Minimum == nil && !paging {
				t.Errorf("%s: argument %s has neither a description nor an enum or format", tool.Name, name)
			}
		}
	}
	want := slices.Concat(wantReads, wantWrites, wantTrainingTools)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v\nwant    %v", names, want)
	}
}

func TestAgentSubsetIsEveryReadPlusTheCoachOnlyWritesAndTheProposals(t *testing.T) {
	var got []string
	for _, tool := range AgentSubset() {
		got = append(got, tool.Name)
	}
	var want []string
	for _, tool := range All() {
		if slices.Contains(wantReads, tool.Name) || slices.Contains(wantTrainingReads, tool.Name) || tool.Name == "create_task" || tool.Name == "draft_weekly_plan" || slices.Contains(AgentProposals, tool.Name) {
			want = append(want, tool.Name)
		}
	}
	for _, never := range []string{"create_trainee", "delete_trainee", "send_message", "freeze_plan", "cancel_plan", "send_whatsapp_invite"} {
		if slices.Contains(got, never) {
			t.Errorf("the assistant is given %s", never)
		}
	}
	for _, name := range AgentProposals {
		if tl, ok := ByName(name); !ok || tl.ReadOnly {
			t.Errorf("proposal %s is not a write tool", name)
		}
	}
	if len(got) != len(wantReads)+len(wantTrainingReads)+2+len(AgentProposals) || !slices.Equal(got, want) {
		t.Fatalf("AgentSubset = %v, want %v", got, want)
	}
}

func TestAllReturnsACopy(t *testing.T) {
	a := All()
	a[0].Name = "changed"
	if All()[0].Name != "search_trainees" {
		t.Fatal("All shares its slice with callers")
	}
}

func TestDescriptionsSayWhereIDsComeFrom(t *testing.T) {
	for _, tool := range All() {
		for name, p := range tool.InputSchema.Properties {
			if strings.HasSuffix(name, "Id") && !strings.Contains(strings.ToLower(p.Description), "from ") {
				t.Errorf("%s.%s: description %q does not say which tool gives the id", tool.Name, name, p.Description)
			}
		}
	}
	plan, _ := ByName("assign_plan")
	if d := plan.InputSchema.Properties["startedOn"].Description; !strings.Contains(d, "last live") || strings.Contains(plan.Description, "defaults to today") {
		t.Errorf("assign_plan must describe what the lane does when startedOn is omitted: %q, %q", plan.Description, d)
	}
	plans, _ := ByName("list_plans")
	if !strings.Contains(plans.Description, "price null") || !strings.Contains(plans.Description, "durationDays null") {
		t.Errorf("list_plans must say what null price and duration mean: %q", plans.Description)
	}
}

func build(t *testing.T, name, args string) (Request, error) {
	t.Helper()
	tool, ok := ByName(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Build(json.RawMessage(args))
}

func bodyJSON(t *testing.T, r Request) string {
	t.Helper()
	if r.Body == nil {
		return ""
	}
	b, err := json.Marshal(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildMapsEachToolToItsLaneCall(t *testing.T) {
	cases := []struct {
		tool, args          string
		method, path, query string
		body                string
	}{
		{"search_trainees", `{"q":"dana","status":"active","coachId":"coa_1","tag":"vip","createdAfter":"2026-01-01T00:00:00Z","updatedAfter":"2026-02-01T00:00:00+02:00","offset":50}`,
			"GET", "/trainees/search", "coachId=coa_1&createdAfter=2026-01-01T00%3A00%3A00Z&limit=20&offset=50&q=dana&status=active&tag=vip&updatedAfter=2026-02-01T00%3A00%3A00%2B02%3A00", ""},
		// A list's page is tools.DefaultLimit when the model gives none.
		{"search_trainees", `{}`, "GET", "/trainees/search", "limit=20", ""},
		{"search_trainees", ``, "GET", "/trainees/search", "limit=20", ""},
		{"search_trainees", `{"q":null,"coachId":"","limit":null}`, "GET", "/trainees/search", "limit=20", ""},
		{"find_trainee_by_phone", `{"phone":"+972 50-123 4567"}`, "GET", "/trainees/by-phone/+972%2050-123%204567", "", ""},
		{"get_trainee", `{"traineeId":"trn_1"}`, "GET", "/trainees/trn_1", "", ""},
		{"list_trainee_programs", `{"traineeId":"trn_1"}`, "GET", "/trainees/trn_1/programs", "", ""},
		{"list_trainee_form_responses", `{"traineeId":"trn_1","limit":10}`, "GET", "/trainees/trn_1/form-responses", "limit=10", ""},
		{"list_trainee_weights", `{"traineeId":"trn_1","limit":200,"offset":3}`, "GET", "/trainees/trn_1/weights", "limit=200&offset=3", ""},
		{"list_trainee_subscriptions", `{"traineeId":"trn_1"}`, "GET", "/trainees/trn_1/subscriptions", "", ""},
		{"list_plans", `{"search":"gold"}`, "GET", "/products", "limit=20&search=gold", ""},
		{"get_trainee_billing", `{"traineeId":"trn_1"}`, "GET", "/trainees/trn_1/billing", "", ""},
		{"list_payments", `{"traineeId":"trn_1","from":"2026-03-01","to":"2026-03-31"}`, "GET", "/payments", "from=2026-03-01&limit=20&to=2026-03-31&traineeId=trn_1", ""},
		{"record_payment", `{"traineeId":"trn_1","amount":249.9,"method":"bit","chargeId":"chg_1"}`, "POST", "/trainees/trn_1/payments", "",
			`{"amount":249.9,"chargeId":"chg_1","method":"bit"}`},
		{"list_program_templates", `{"limit":1}`, "GET", "/program-templates", "limit=1", ""},
		{"list_forms", `{"search":"check-in"}`, "GET", "/forms", "limit=20&search=check-in", ""},
		{"list_coaches", `{}`, "GET", "/rpc/coaches", "limit=20", ""},
		{"list_tags", `null`, "GET", "/rpc/tags", "limit=20", ""},
		{"list_tasks", `{"status":"open","clientId":"trn_1","coachId":"coa_1"}`, "GET", "/tasks", "clientId=trn_1&coachId=coa_1&limit=20&status=open", ""},
		{"create_trainee", `{"firstName":"Dana","lastName":"Levi","phone":"050-123-4567","tags":["vip"],"productId":"prd_1"}`,
			"POST", "/trainees", "",
			`{"firstName":"Dana","lastName":"Levi","notify":false,"phone":"050-123-4567","productId":"prd_1","sendWhatsappInvite":false,"tags":["vip"]}`},
		{"update_trainee", `{"traineeId":"trn_1","goal":"run 10k","tags":[]}`, "PATCH", "/trainees/trn_1", "", `{"goal":"run 10k","tags":[]}`},
		{"assign_plan", `{"traineeId":"trn_1","productId":"prd_1"}`, "POST", "/trainees/trn_1/subscription", "", `{"notify":false,"productId":"prd_1"}`},
		{"assign_plan", `{"traineeId":"trn_1","productId":"prd_1","startedOn":"2026-04-01","price":0,"durationDays":30}`,
			"POST", "/trainees/trn_1/subscription", "", `{"durationDays":30,"notify":false,"price":0,"productId":"prd_1","startedOn":"2026-04-01"}`},
		{"assign_program", `{"traineeId":"trn_1","templateId":"ptm_1","startsOn":"2026-04-01"}`,
			"POST", "/trainees/trn_1/programs/assign", "", `{"notify":false,"replaceExisting":false,"startsOn":"2026-04-01","templateId":"ptm_1"}`},
		{"send_form", `{"traineeId":"trn_1","formTemplateId":"frm_1"}`, "POST", "/trainees/trn_1/forms/assign", "", `{"formTemplateId":"frm_1"}`},
		{"send_form", `{"traineeId":"trn_1","formTemplateId":"frm_1","notify":false,"prompt":"Sunday check-in","fieldValues":[{"key":"sleep","value":"7"}]}`,
			"POST", "/trainees/trn_1/forms/assign", "", `{"fieldValues":{"sleep":7},"formTemplateId":"frm_1","notify":false,"prompt":"Sunday check-in"}`},
		{"send_form", `{"traineeId":"trn_1","formTemplateId":"frm_1","notify":true}`, "POST", "/trainees/trn_1/forms/assign", "", `{"formTemplateId":"frm_1","notify":true}`},
		{"create_task", `{"title":"Call Dana","clientId":"trn_1","priority":0}`, "POST", "/tasks", "", `{"clientId":"trn_1","priority":0,"title":"Call Dana"}`},
		{"update_task", `{"taskId":"tsk_1","status":"done"}`, "PATCH", "/tasks/tsk_1", "", `{"status":"done"}`},
		{"log_weight", `{"traineeId":"trn_1","weightKg":72.5}`, "POST", "/trainees/trn_1/weights", "", `{"weightKg":72.5}`},
		{"search_exercises", `{"q":"סקוואט","equipment":"dumbbell","view":"full"}`, "GET", "/exercises", "equipment=dumbbell&limit=20&q=%D7%A1%D7%A7%D7%95%D7%95%D7%90%D7%98&view=full", ""},
		{"search_exercises", `{"category":"cardio","area":"knee","muscle":"quadriceps","limit":5}`, "GET", "/exercises", "area=knee&category=cardio&limit=5&muscle=quadriceps", ""},
	}
	for _, c := range cases {
		r, err := build(t, c.tool, c.args)
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
			continue
		}
		if r.Method != c.method || r.Path != c.path || url.Values(r.Query).Encode() != c.query {
			t.Errorf("%s %s: %s %s ?%s, want %s %s ?%s", c.tool, c.args, r.Method, r.Path, url.Values(r.Query).Encode(), c.method, c.path, c.query)
		}
		if got := bodyJSON(t, r); got != c.body {
			t.Errorf("%s %s: body %s\nwant %s", c.tool, c.args, got, c.body)
		}
	}
}

func TestForcedSilentFlagsAreNotInputs(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"0501234567","notify":true}`},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"0501234567","sendWhatsappInvite":true}`},
		{"assign_plan", `{"traineeId":"trn_1","productId":"prd_1","notify":true}`},
		{"assign_program", `{"traineeId":"trn_1","templateId":"ptm_1","notify":true}`},
		{"assign_program", `{"traineeId":"trn_1","templateId":"ptm_1","replaceExisting":true}`},
	} {
		_, err := build(t, c.tool, c.args)
		if err == nil || !strings.Contains(err.Error(), "there is no argument") {
			t.Errorf("%s %s: err = %v, want the flag refused as an unknown argument", c.tool, c.args, err)
		}
	}
}

func TestBuildRefusesBadArgumentsWithASentence(t *testing.T) {
	long := strings.Repeat("x", 501)
	cases := []struct{ tool, args, want string }{
		{"search_trainees", `{"limit":0}`, "limit must be a whole number from 1 to 200; got 0."},
		{"search_trainees", `{"limit":201}`, "limit must be a whole number from 1 to 200; got 201."},
		{"search_trainees", `{"offset":-1}`, "offset must be a whole number of at least 0; got -1."},
		{"search_trainees", `{"status":"gone"}`, `status must be one of "active", "paused", "archived"`},
		{"search_trainees", `{"q":5}`, "q must be a string of at most 200 characters; got 5."},
		{"search_trainees", `{"q":"` + strings.Repeat("q", 201) + `"}`, "q must be a string of at most 200 characters"},
		{"search_trainees", `{"createdAfter":"2026-01-01"}`, "createdAfter must be a date and time in RFC 3339 form"},
		{"create_task", `{"title":"t","priority":2.0}`, "priority must be a whole number written without a decimal point; got 2.0."},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"1","email":"not-an-address"}`, "email must be an email address"},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"1","birthDate":"01/02/1990"}`, "birthDate must be a date"},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"1","tags":[` + strings.Repeat(`"t",`, 50) + `"t"]}`, "tags must be a list of at most 50"},
		{"create_trainee", `{"firstName":"` + strings.Repeat("f", 101) + `","lastName":"B","phone":"1"}`, "firstName must be a string of 1 to 100 characters"},
		{"search_trainees", `{"limit":5.0}`, "limit must be a whole number written without a decimal point"},
		{"search_trainees", `[1,2]`, "must be one JSON object of named fields (q, status, coachId, tag, createdAfter, updatedAfter, view, limit, offset)"},
		{"get_trainee", `{}`, "traineeId is required; it must be a string that is not empty. Id or name, from search_trainees"},
		{"get_trainee", `{"traineeId":""}`, "traineeId must be a string that is not empty"},
		{"get_trainee", `{"id":"trn_1"}`, `there is no argument "id"; the arguments are: traineeId.`},
		{"list_coaches", `{"coachId":"coa_1"}`, `there is no argument "coachId"; the arguments are: limit, offset.`},
		// A field inside an argument names the fields of the object it is in, not the arguments.
		{"log_workout", `{"traineeId":"trn_1","sport":"strength","exercises":[{"exerciseId":"back-squat","sets":[{"reps":5,"weight":100}]}]}`, "weight is not a field of this request; the fields are done, loadKg, metres, reps, rir, rpe, seconds."},
		{"log_workout", `{"traineeId":"trn_1","sport":"strength","exercises":[{"exercise":"back-squat","sets":[]}]}`, "the fields are exerciseId"},
		{"send_form", `{"traineeId":"trn_1","formTemplateId":"frm_1","prompt":"` + long + `"}`, "prompt must be a string of at most 500 characters"},
		{"create_task", `{"title":"t","detail":"` + strings.Repeat("y", 2001) + `"}`, "detail must be a string of at most 2000 characters"},
		{"create_task", `{"title":"t","priority":6}`, "priority must be a whole number from 0 to 5; got 6."},
		{"update_task", `{"taskId":"tsk_1","priority":-1}`, "priority must be a whole number from 0 to 5"},
		{"update_task", `{"taskId":"tsk_1","status":"closed"}`, `status must be one of "open", "done", "snoozed"`},
		{"log_weight", `{"traineeId":"trn_1","weightKg":0}`, "weightKg must be a number from 20 to 350; got 0."},
		{"log_weight", `{"traineeId":"trn_1","weightKg":350.5}`, "weightKg must be a number from 20 to 350"},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"1","tags":[1]}`, "tags must be a list of at most 50 strings"},
		{"assign_plan", `{"traineeId":"trn_1","productId":"prd_1","price":-5}`, "price must be a number from 0 to 1000000"},
	}
	for _, c := range cases {
		_, err := build(t, c.tool, c.args)
		if err == nil {
			t.Errorf("%s %s: accepted", c.tool, c.args)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s:\n got %q\nwant it to contain %q", c.tool, c.args, err, c.want)
		}
		if !strings.Contains(err.Error(), c.tool) {
			t.Errorf("%s: the sentence %q does not name the tool", c.tool, err)
		}
	}
}

func TestBoundaryValuesAreAccepted(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"search_trainees", `{"limit":1,"offset":0}`},
		{"search_trainees", `{"limit":200}`},
		{"log_weight", `{"traineeId":"trn_1","weightKg":350}`},
		{"log_weight", `{"traineeId":"trn_1","weightKg":20}`},
		{"create_task", `{"title":"t","priority":5,"detail":"` + strings.Repeat("y", 2000) + `"}`},
		{"send_form", `{"traineeId":"trn_1","formTemplateId":"frm_1","prompt":"` + strings.Repeat("ש", 500) + `"}`},
		{"create_trainee", `{"firstName":"A","lastName":"B","phone":"1","tags":null,"email":"a@b.c"}`},
	} {
		if _, err := build(t, c.tool, c.args); err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
}

// FuzzBuild feeds every tool arbitrary arguments: Build never panics, and
// what it accepts is a well-formed lane call whose path keeps ids inside
// their own segment.
func FuzzBuild(f *testing.F) {
	f.Add(0, `{"traineeId":"trn_1"}`)
	f.Add(2, `{"traineeId":"a/b?c#d"}`)
	f.Add(1, `{"phone":"+972 50-123-4567"}`)
	f.Add(13, `{"firstName":"A","lastName":"B","phone":"0501234567","tags":["x"]}`)
	f.Add(14, `{"traineeId":"trn_1","coachIds":[],"heightCm":170.5}`)
	f.Add(17, `{"traineeId":"%2e%2e","formTemplateId":"frm_1","fieldValues":{"a":[1,{"b":null}]}}`)
	f.Add(19, `{"taskId":"tsk_1","status":"snoozed","snoozeUntil":"2026-01-01"}`)
	f.Add(20, `{"traineeId":"trn_1","weightKg":1e308}`)
	f.Add(0, `{"limit":1e30}`)
	f.Add(0, `null`)
	f.Add(3, ``)
	f.Fuzz(func(t *testing.T, i int, args string) {
		tools := All()
		tool := tools[((i%len(tools))+len(tools))%len(tools)]
		r, err := tool.Build(json.RawMessage(args))
		if err != nil {
			if !strings.Contains(err.Error(), tool.Name) {
				t.Fatalf("%s: error %q does not name the tool", tool.Name, err)
			}
			return
		}
		if r.Method == "" || !strings.HasPrefix(r.Path, "/") {
			t.Fatalf("%s: malformed request %+v", tool.Name, r)
		}
		if _, err := json.Marshal(r.Body); err != nil {
			t.Fatalf("%s: body does not encode: %v", tool.Name, err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(args), &m)
		for _, key := range []string{"traineeId", "taskId"} {
			id, ok := m[key].(string)
			if !ok {
				continue
			}
			segs := strings.Split(r.Path, "/")
			if len(segs) < 3 {
				t.Fatalf("%s: path %q lost the id", tool.Name, r.Path)
			}
			if got, err := url.PathUnescape(segs[2]); err != nil || got != id {
				t.Fatalf("%s: path %q does not carry id %q in one segment", tool.Name, r.Path, id)
			}
		}
	})
}

// Every argument that carries an id is declared in IDArguments, so no tool
// sends a lane path or filter an id of the wrong kind; and each declared
// one is refused with the lane's not-found sentence when it is not one.
func TestEveryIDArgumentIsCheckedForItsKind(t *testing.T) {
	for _, tool := range All() {
		for name, p := range tool.InputSchema.Properties {
			if !strings.HasSuffix(name, "Id") && !strings.HasSuffix(name, "Ids") {
				continue
			}
			if name == "exerciseId" || name == "replacementId" {
				continue // a built-in slug or an exr_ id: the lane's exercise lookup refuses the rest
			}
			kind, ok := IDArguments[name]
			if !ok {
				t.Errorf("%s: argument %s carries an id but is not in IDArguments", tool.Name, name)
				continue
			}
			for _, bad := range []string{"..", "%2e%2e", "x/../keys", "nope", string(kind), "tsk_1", "frm_1"} {
				if bad == "tsk_1" && kind == "tsk" || bad == "frm_1" && kind == "frm" {
					continue
				}
				if Named[kind] && (bad == "nope" || bad == string(kind)) {
					// A name: the lane resolves it, or answers that no record has it.
					args, _ := json.Marshal(withRequired(tool, map[string]any{name: nameValue(p, kind, bad)}))
					if _, err := tool.Build(args); err != nil {
						t.Errorf("%s %s=%q: %v; a name goes to the lane", tool.Name, name, bad, err)
					}
					continue
				}
				value := any(bad)
				if p.Type == "array" || slices.Contains(p.Types, "array") {
					value = []string{string(kind) + "_ok", bad}
				}
				args, _ := json.Marshal(withRequired(tool, map[string]any{name: value}))
				_, err := tool.Build(args)
				if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "valid id") && !strings.Contains(err.Error(), "this needs") {
					t.Errorf("%s %s=%q: %v; want the not-found sentence naming %s", tool.Name, name, bad, err, name)
				}
			}
		}
	}
}

// nameValue is a name as the argument takes it: alone, or in a list.
func nameValue(p *jsonschema.Schema, kind ids.Kind, name string) any {
	if p.Type == "array" || slices.Contains(p.Types, "array") {
		return []string{string(kind) + "_ok", name}
	}
	return name
}

// withRequired fills the tool's other required arguments with values the
// schema accepts.
func withRequired(tool Tool, args map[string]any) map[string]any {
	for _, r := range tool.InputSchema.Required {
		if _, ok := args[r]; ok {
			continue
		}
		switch {
		case IDArguments[r] != "":
			args[r] = string(IDArguments[r]) + "_1"
		case tool.InputSchema.Properties[r].Type == "number":
			args[r] = 70
		case tool.InputSchema.Properties[r].Format == "date":
			args[r] = "2026-03-01"
		case tool.InputSchema.Properties[r].Type == "integer":
			args[r] = 1
		case len(tool.InputSchema.Properties[r].Enum) > 0:
			args[r] = tool.InputSchema.Properties[r].Enum[0]
		default:
			args[r] = "x"
		}
	}
	return args
}

func BenchmarkBuildGetTrainee(b *testing.B) {
	tool, _ := ByName("get_trainee")
	args := json.RawMessage(`{"traineeId":"trn_01jqz7x8m3c5v9r2t4w6y8a0b2"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Build(args); err != nil {
			b.Fatal(err)
		}
	}
}

// search_trainees says what near matches are, so a model does not take one
// for a match, and that words match in any order.
func TestSearchDescribesNearMatches(t *testing.T) {
	tool, ok := ByName("search_trainees")
	if !ok {
		t.Fatal("no search_trainees")
	}
	for _, want := range []string{"nearMatches", "not matches", "closest first"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q: %s", want, tool.Description)
		}
	}
	q := tool.InputSchema.Properties["q"]
	if q == nil || !strings.Contains(q.Description, "any order") || !strings.Contains(q.Description, "Ben-David") {
		t.Errorf("q's description does not give the word rules: %+v", q)
	}
}

// A weekly plan's draft gets no derived repeat key: the lane answers the
// pending draft only while what the rules read is the same, and a repeat
// key would answer the first draft after a new injury. Every other
// coach and trainee write is keyed.
func TestDraftsAreTheOnlyUnkeyedWrites(t *testing.T) {
	for _, set := range [][]Tool{All(), Trainee()} {
		for _, tool := range set {
			want := tool.Name == "draft_weekly_plan" || tool.Name == "generate_weekly_plan"
			if !tool.ReadOnly && tool.Unkeyed != want {
				t.Errorf("%s: Unkeyed %v, want %v", tool.Name, tool.Unkeyed, want)
			}
		}
	}
}
