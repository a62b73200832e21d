package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestConversationFromHeaders(t *testing.T) {
	h := http.Header{}
	if _, ok, err := ConversationFromHeaders(h); ok || err != nil {
		t.Fatalf("no headers: ok %v err %v", ok, err)
	}
	h.Set(HeaderConversationID, " conv_1 ")
	h.Set(HeaderChannel, "Phone")
	h.Set(HeaderEndUserPhone, "+972501000001")
	h.Set(HeaderUserToken, "tok")
	h.Set(HeaderEndUserAttributes, `{"tier":"gold"}`)
	h.Set(HeaderEndUserName, strings.Repeat("é", 300))
	c, ok, err := ConversationFromHeaders(h)
	if !ok || err != nil || c.ID != "conv_1" || c.Channel != "phone" || c.Phone != "+972501000001" || !c.HasToken || c.Attributes["tier"] != "gold" {
		t.Fatalf("conversation: %+v ok %v err %v", c, ok, err)
	}
	if len(c.Name) > maxClaim || !utf8.ValidString(c.Name) {
		t.Errorf("name not clipped on a rune boundary: %d bytes", len(c.Name))
	}
	// The token itself never reaches the audit's JSON.
	if b, _ := json.Marshal(c); strings.Contains(string(b), `"tok"`) {
		t.Errorf("the user token was recorded: %s", b)
	}
	for _, bad := range []string{"{not json", "[1,2]", "null", `"x"`, "{" + strings.Repeat(" ", maxAttributes) + "}"} {
		h.Set(HeaderEndUserAttributes, bad)
		c, ok, err := ConversationFromHeaders(h)
		if !ok || !errors.Is(err, ErrBadAttributes) || c.Attributes != nil || c.ID != "conv_1" {
			t.Errorf("attributes %q: %+v ok %v err %v", bad, c, ok, err)
		}
	}
	ctx := WithConversation(context.Background(), c)
	if got, ok := ConversationFrom(ctx); !ok || got.ID != "conv_1" {
		t.Errorf("from context: %+v %v", got, ok)
	}
	if _, ok := ConversationFrom(context.Background()); ok {
		t.Error("an empty context carries a conversation")
	}
}

func FuzzConversationFromHeaders(f *testing.F) {
	f.Add("conv_1", "web", `{"a":1}`, "Dana")
	f.Add("", "", "{not json", "")
	f.Add("x", "PHONE", "[]", strings.Repeat("ש", 150))
	f.Fuzz(func(t *testing.T, id, channel, attrs, name string) {
		h := http.Header{}
		h.Set(HeaderConversationID, id)
		h.Set(HeaderChannel, channel)
		h.Set(HeaderEndUserAttributes, attrs)
		h.Set(HeaderEndUserName, name)
		c, _, err := ConversationFromHeaders(h)
		if err != nil && !errors.Is(err, ErrBadAttributes) {
			t.Fatalf("unexpected error %v", err)
		}
		if len(c.ID) > maxClaim || len(c.Name) > maxClaim || len(c.Channel) > maxClaim*2 {
			t.Fatalf("a claim is not bounded: %d %d", len(c.ID), len(c.Name))
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("not recordable: %v", err)
		}
	})
}

// The broker's headers are read but never recorded: the audit's JSON has
// the trainee token's verdict only; an over-long callback URL or token is
// left out, an over-long trainee token kept cut (so it is refused).
func TestConversationBrokerHeaders(t *testing.T) {
	h := http.Header{}
	h.Set(HeaderAuthCallback, "https://perfox.example/conversations/c1/auth-context")
	h.Set(HeaderAuthCallbackToken, "cbt_secret")
	h.Set(HeaderTraineeToken, "pf_tt_secret")
	c, ok, err := ConversationFromHeaders(h)
	if !ok || err != nil || c.CallbackURL == "" || c.CallbackToken != "cbt_secret" || c.TraineeToken != "pf_tt_secret" || c.Token.Verdict() != TokenPresented {
		t.Fatalf("broker headers: %+v ok %v err %v", c, ok, err)
	}
	c.Token.Set(TokenExpired)
	b, _ := json.Marshal(c)
	if strings.Contains(string(b), "secret") || strings.Contains(string(b), "perfox.example") || !strings.Contains(string(b), `"traineeToken":"expired"`) {
		t.Errorf("recorded: %s", b)
	}
	h.Set(HeaderAuthCallback, "https://perfox.example/"+strings.Repeat("a", maxCallbackURL))
	h.Set(HeaderAuthCallbackToken, strings.Repeat("t", maxCallbackToken+1))
	h.Set(HeaderTraineeToken, strings.Repeat("p", 1000))
	c, _, _ = ConversationFromHeaders(h)
	if c.CallbackURL != "" || c.CallbackToken != "" || len(c.TraineeToken) != maxTraineeToken {
		t.Errorf("over-long broker headers: url %d token %d trainee token %d", len(c.CallbackURL), len(c.CallbackToken), len(c.TraineeToken))
	}
	if b, _ := json.Marshal(Conversation{ID: "c"}); strings.Contains(string(b), "traineeToken") {
		t.Errorf("a call without a trainee token records one: %s", b)
	}
}
