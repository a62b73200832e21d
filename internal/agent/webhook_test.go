package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func pendingCount(t testing.TB, st store.Store) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM agent_messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWebhookTokenAndValidation(t *testing.T) {
	h := newHarness(t, storetest.OpenSQLite(t))
	good := `{"text":"hi","phone":"972501234567","conversationId":"c1"}`

	for _, token := range []string{"", "wrong", testToken + "x"} {
		r := h.post(token, good)
		if r.Status != 401 || r.errorMessage() != "invalid webhook token" || r.Body["ok"] != false || r.Body["requestId"] == "" {
			t.Fatalf("token %q: %d %v", token, r.Status, r.Body)
		}
	}
	cases := []struct{ body, field string }{
		{`{"text":"hi","conversationId":"c1"}`, "phone"},
		{`{"text":"hi","phone":"","conversationId":"c1"}`, "phone"},
		{`{"text":"hi","phone":"972501234567"}`, "conversationId"},
		{`{"text":5,"phone":"972501234567","conversationId":"c1"}`, "text"},
		{`{"text":"hi","phone":972501234567,"conversationId":"c1"}`, "phone"},
		{`not json`, "JSON object"},
		{`{"phone":"1"} {"phone":"2"}`, "one JSON object"},
	}
	for _, c := range cases {
		r := h.post(testToken, c.body)
		e, _ := r.Body["error"].(map[string]any)
		if r.Status != 422 || e["code"] != "VALIDATION" || !strings.Contains(r.errorMessage(), c.field) {
			t.Fatalf("body %s: %d %v; want 422 naming %s", c.body, r.Status, r.Body, c.field)
		}
	}
	resp, err := http.Get(h.hook.URL + "?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("GET: %d; want 405", resp.StatusCode)
	}
	if n := pendingCount(t, h.st); n != 0 {
		t.Fatalf("%d messages stored by rejected calls", n)
	}
}

func TestWebhookEarlyExits(t *testing.T) {
	st := storetest.OpenSQLite(t)
	h := newHarness(t, st, func(o *Options) { o.PilotPhones = []string{"050-123-4567"} })
	accepted0 := func(body string) {
		t.Helper()
		r := h.post(testToken, body)
		if r.Status != 200 || r.Body["ok"] != true || r.accepted() != 0 {
			t.Fatalf("%s: %d %v; want 200 accepted 0", body, r.Status, r.Body)
		}
	}
	accepted0(`{"text":"hi","phone":"12345678","conversationId":"c1"}`)             // 8 digits: a group id
	accepted0(`{"text":"hi","phone":"12345678901234","conversationId":"c1"}`)       // 14 digits: a broadcast id
	accepted0(`{"text":"hi","phone":"972529999999","conversationId":"c1"}`)         // not in the pilot: silent
	accepted0(`{"text":"","phone":"972501234567","conversationId":"c-empty"}`)      // empty: text-only reply
	accepted0(`{"phone":"972501234567","conversationId":"c-absent"}`)               // text defaults to ""
	accepted0(`{"text":"[image]","phone":"972501234567","conversationId":"c-img"}`) // media marker
	if n := pendingCount(t, st); n != 0 {
		t.Fatalf("%d messages stored; early exits store nothing", n)
	}
	sent := h.sms.Sent()
	if len(sent) != 3 {
		t.Fatalf("sent %d messages; want the text-only reply three times: %v", len(sent), sent)
	}
	for i, conv := range []string{"c-empty", "c-absent", "c-img"} {
		if sent[i].ConversationID != conv || sent[i].Text != msgTextOnly || sent[i].Authorization != "Bearer "+testKey {
			t.Fatalf("sent[%d] = %+v", i, sent[i])
		}
		if sent[i].Path != "/v1/conversations/"+conv+"/messages" {
			t.Fatalf("path %s", sent[i].Path)
		}
	}
	// A text that merely contains brackets is a message.
	h.send("+972 50-123-4567", "c2", "[image] of the week?")
	if n := pendingCount(t, st); n != 1 {
		t.Fatalf("%d messages stored; want 1", n)
	}
}

func TestWebhookDisabledWithoutSmartSendKey(t *testing.T) {
	st := storetest.OpenSQLite(t)
	h := newHarness(t, st, func(o *Options) { o.SmartSendKey = "" })
	r := h.post(testToken, `{"text":"","phone":"972501234567","conversationId":"c1"}`)
	if r.Status != 200 || r.accepted() != 0 {
		t.Fatalf("%d %v", r.Status, r.Body)
	}
	r = h.post(testToken, `{"text":"hello","phone":"972501234567","conversationId":"c1"}`)
	if r.Status != 200 || r.accepted() != 0 {
		t.Fatalf("%d %v", r.Status, r.Body)
	}
	if len(h.sms.Sent()) != 0 || pendingCount(t, st) != 0 {
		t.Fatal("a disabled agent sent or stored something")
	}
}

func TestWebhookStoresAndSchedulesInOneTransaction(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st, func(o *Options) { o.Debounce = time.Hour })
		h.send("0501234567", "c1", "  hello there  ")
		var phone, conv, text, state string
		if err := st.DB().QueryRow(`SELECT phone, conversation_id, text, state FROM agent_messages`).Scan(&phone, &conv, &text, &state); err != nil {
			t.Fatal(err)
		}
		if phone != "+972501234567" || conv != "c1" || text != "hello there" || state != "pending" {
			t.Fatalf("stored %q %q %q %q", phone, conv, text, state)
		}
		res, err := h.jobs.JobList(context.Background(), river.NewJobListParams().Kinds("agent_reply").
			States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateScheduled))
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].Queue != jobs.QueueHolding {
			t.Fatalf("reply jobs: %v, %v; want one in the holding queue", res, err)
		}
		job := res.Jobs[0]
		var ra replyArgs
		if err := json.Unmarshal(job.EncodedArgs, &ra); err != nil || ra.Phone != "+972501234567" || ra.Seq == 0 {
			t.Fatalf("job args %s", job.EncodedArgs)
		}
		if until := time.Until(time.UnixMilli(ra.Due)); until < 50*time.Minute {
			t.Fatalf("the reply is due %s from now; want the debounce of an hour", until)
		}
	})
}

func TestHandleInboundWithoutJobsClient(t *testing.T) {
	st := storetest.OpenSQLite(t)
	a, err := New(Options{Store: st, Lane: newLaneClientForTest(t, st), SmartSendKey: "k", Gateway: gatewayFunc(func(context.Context, string, string) error { return nil }), SecretKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.HandleInbound(context.Background(), Inbound{Text: "hi", Phone: "972501234567", ConversationID: "c"}); err == nil {
		t.Fatal("HandleInbound without a job client succeeded")
	}
}

type gatewayFunc func(ctx context.Context, conv, text string) error

func (f gatewayFunc) Send(ctx context.Context, conv, text string) error { return f(ctx, conv, text) }

func TestNewRejectsMissingParts(t *testing.T) {
	st := storetest.OpenSQLite(t)
	if _, err := New(Options{Lane: newLaneClientForTest(t, st), SecretKey: make([]byte, 32)}); err == nil {
		t.Fatal("no store accepted")
	}
	if _, err := New(Options{Store: st, SecretKey: make([]byte, 32)}); err == nil {
		t.Fatal("no lane accepted")
	}
	if _, err := New(Options{Store: st, Lane: newLaneClientForTest(t, st)}); err == nil || !strings.Contains(err.Error(), "PERFORM_SECRET_KEY") {
		t.Fatalf("no secret key: %v", err)
	}
}

func TestDecodeInbound(t *testing.T) {
	in, err := DecodeInbound([]byte(`{"phone":"972501234567","conversationId":"c","senderName":"Dana","extra":1}`))
	if err != nil || in.Text != "" || in.SenderName != "Dana" {
		t.Fatalf("%+v %v", in, err)
	}
	_, err = DecodeInbound([]byte(`{"phone":"1","conversationId":null}`))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "conversationId" {
		t.Fatalf("err = %v", err)
	}
}

func FuzzDecodeInbound(f *testing.F) {
	f.Add([]byte(`{"text":"hi","phone":"972501234567","conversationId":"c1","senderName":"Dana"}`))
	f.Add([]byte(`{"phone":"1","conversationId":"c"}`))
	f.Add([]byte(`{"text":5}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"text":"\u0000","phone":"\ud800","conversationId":"x"} trailing`))
	f.Add([]byte(``))
	f.Add([]byte(`{"text":"a\u001b[2J\u0085b","phone":"972501234567","conversationId":"c\u007f"}`))
	f.Add([]byte("{\"text\":\"\xff\xfe\",\"phone\":\"972501234567\",\"conversationId\":\"c\"}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := DecodeInbound(body)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field == "" || fe.Message == "" {
				t.Fatalf("error %v is not a FieldError naming a field", err)
			}
			return
		}
		if in.Phone == "" || in.ConversationID == "" {
			t.Fatalf("accepted %q without phone or conversationId", body)
		}
		for _, v := range []string{in.Text, in.Phone, in.ConversationID, in.SenderName} {
			if msg := badText(v); msg != "" || strings.ContainsRune(v, 0) {
				t.Fatalf("accepted %q: a field %s", body, msg)
			}
		}
		// What is accepted re-encodes and decodes to the same message.
		again, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeInbound(again)
		if err != nil || back != in {
			t.Fatalf("round trip %+v -> %+v, %v", in, back, err)
		}
	})
}
