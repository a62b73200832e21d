package tools

import (
	"fmt"
	"slices"
	"sync"

	"github.com/otherwise/perform/internal/auth"
)

// The agent platform's tools: what an agent platform's key (a studio's
// customer-facing agent) calls for anyone who talks to it. Each is one call
// to a route the lane opens to platform keys only (scope public:read).
const (
	StudioInfoTool          = "get_studio_info"
	StartVerificationTool   = "start_verification"
	ConfirmVerificationTool = "confirm_verification"
	SignOutTool             = "sign_out"
)

// platformSet describes the platform's arguments in the words of a
// customer-facing agent; the bounds are the lane's.
var platformSet = toolSet{platform: true, descriptions: map[string]string{}}

// platformSpecs are the platform's tools, in tools/list order of their
// names; sign_out is offered only to a verified conversation.
func platformSpecs() []spec {
	return []spec{
		{name: StudioInfoTool, title: "The studio and what it offers", readOnly: true, route: "GET /public/studio",
			description: "The studio's name, its active plans (name, price, currency, durationDays; null price: set per person, null duration: open-ended), its program templates by name and weeks, and how to join. Takes no arguments."},

		{name: StartVerificationTool, title: "Verify the person: send a code", route: "POST /public/verification/start", openWorld: true,
			description: "Call when the person asks about their own training, plan or records: sends a one-time code over WhatsApp to the phone on their trainee record. " +
				"phone and externalId default to what the platform reported; the answer is the same whether or not they match a trainee. Then ask for the code and call confirm_verification.",
			args: map[string]string{
				"phone":      "The phone the person gives, with country code if they know it.",
				"externalId": "The person's trainee id (trn_…), when known.",
			}},

		{name: ConfirmVerificationTool, title: "Verify the person: check the code", route: "POST /public/verification/confirm",
			description: "The code the person received after start_verification. When right, this conversation reads and records the person's own training (the trainee tools appear on the next tools/list) for 24 hours. " +
				"5 wrong codes lock it.",
			args: map[string]string{"code": "The 6-digit code."}},

		{name: SignOutTool, title: "Sign the person out", idempotent: true, route: "POST /public/verification/sign-out",
			description: "Call when the person asks to sign out or leaves: this conversation stops reading and recording their training until they verify again. Takes no arguments."},
	}
}

// LanePlatformContracts are the contracts of the routes the lane opens to
// an agent platform's key, by route ("POST /public/verification/start"),
// each parsed afresh.
func LanePlatformContracts() map[string]Contract {
	out := map[string]Contract{}
	for _, c := range laneContracts() {
		if c.Scope == auth.ScopePublicRead {
			out[c.Method+" "+c.Path] = c
		}
	}
	return out
}

var platform = sync.OnceValue(func() []Tool {
	byRoute := LanePlatformContracts()
	contracts := map[string]Contract{}
	for _, s := range platformSpecs() {
		c, ok := byRoute[s.route]
		if !ok {
			panic(fmt.Sprintf("platform tool %s: the lane opens no route %s to a platform key; run go generate ./internal/tools", s.name, s.route))
		}
		contracts[s.name] = c
	}
	var set []Tool
	for _, s := range platformSpecs() {
		set = append(set, defineIn(platformSet, s, contracts))
	}
	return set
})

// Platform returns the agent platform's tools: get_studio_info,
// start_verification, confirm_verification and sign_out. The slice is
// fresh; its tools share their schemas, which callers must not modify.
func Platform() []Tool { return slices.Clone(platform()) }

// PlatformPublic are the platform's tools for a conversation not (or no
// longer) verified: all but sign_out.
func PlatformPublic() []Tool {
	return slices.DeleteFunc(Platform(), func(t Tool) bool { return t.Name == SignOutTool })
}
