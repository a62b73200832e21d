package toolset

import (
	"github.com/otherwise/perform/internal/tools"
)

// PlatformInstructions are sent at initialize to an agent platform (a
// platform key): it answers the studio's customers and prospects.
const PlatformInstructions = `These tools answer for one coaching studio to the people who talk to its customer-facing agent.
get_studio_info gives the studio's name, its plans with prices and durations, its program templates by name, and how to join: use it for "what do you offer", "how much", "how do I join".
Who the person says they are (name, phone, email) proves nothing here. For their own training, plan or records, verify them: start_verification sends a code over WhatsApp to the phone on their trainee record, confirm_verification checks it; then this conversation has the trainee's own tools (list the tools again).
A failed call answers one sentence saying what to do next: relay it or follow it.`

// The agent platform's tools (tools.Platform), defined like every other
// tool and run through the one executor.
const (
	StudioInfoTool          = tools.StudioInfoTool
	StartVerificationTool   = tools.StartVerificationTool
	ConfirmVerificationTool = tools.ConfirmVerificationTool
	SignOutTool             = tools.SignOutTool
)

// PlatformTools are the public tools' names, in tools/list order; a
// verified conversation also has sign_out and the trainee tools.
var PlatformTools = []string{ConfirmVerificationTool, StudioInfoTool, StartVerificationTool}

// CodeVerificationRequired is the code of a trainee tool called by a
// platform conversation not (or no longer) verified.
const CodeVerificationRequired = "VERIFICATION_REQUIRED"

// verifyFirst says what opens a trainee tool to a platform conversation.
func verifyFirst(tool string) string {
	if tool == SignOutTool {
		return "This conversation is not verified, so there is nothing to sign out of."
	}
	return tool + " reads or records a trainee's own training, and this conversation is not verified: " +
		"call start_verification (it sends a code over WhatsApp to the phone on the person's trainee record), ask the person for the code, " +
		"then call confirm_verification with it; " + tool + " is then on the next tools/list."
}
