package testkit

import "regexp"

// SentCode is one sign-in code a server wrote to its log (as it does with
// no WhatsApp gateway configured): the last four digits of the masked
// phone it went to, and the code.
type SentCode struct {
	Last4 string
	Code  string
}

// sentCodeLine is the server's "sign-in code" line, text or JSON.
var sentCodeLine = regexp.MustCompile(`sign-in code.*?phone"?[=:]"?…(\d{4})"?.*?code"?[=:]"?(\d{6})\b`)

// SentCodes lists the sign-in codes of a server's log, oldest first.
func SentCodes(log string) []SentCode {
	var out []SentCode
	for _, m := range sentCodeLine.FindAllStringSubmatch(log, -1) {
		out = append(out, SentCode{Last4: m[1], Code: m[2]})
	}
	return out
}

// oneTimeCode is a one-time code as Perform sends one: six digits on
// their own.
var oneTimeCode = regexp.MustCompile(`\b\d{6}\b`)

// CodeIn is the one-time code a message carries (a sign-in or a
// verification code sent over WhatsApp), "" when it holds none.
func CodeIn(text string) string { return oneTimeCode.FindString(text) }
