package agent

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// answerKind is what a coach's reply to a list of proposals says.
type answerKind int

const (
	answerAll  answerKind = iota + 1 // כן / yes: every proposal
	answerNone                       // לא / no: none
	answerSome                       // the numbers to keep
)

// proposalAnswer is a parsed reply: its kind and, for answerSome, the
// numbers named, ascending and without repeats.
type proposalAnswer struct {
	kind answerKind
	nums []int
}

// maxAnswerRunes bounds what is read as an answer: a longer message is a
// new request, even if it starts with "yes".
const maxAnswerRunes = 60

// maxProposalNum bounds a number read as a proposal's: a turn proposes at
// most eight writes, and a larger number is a quantity ("72.4", "2026").
const maxProposalNum = 99

var (
	yesWords = setOf("כן", "yes", "y", "yep", "yeah", "ok", "okay", "אוקי", "אוקיי", "מאשר", "מאשרת", "מאושר", "אישור", "אשר", "בצע", "תבצע", "סבבה", "go", "confirm", "כולם", "הכל", "all")
	noWords  = setOf("לא", "no", "n", "nope", "בטל", "ביטול", "תבטל", "cancel")
	// fillers may stand beside numbers or a yes: "כן 1 ו-3", "רק 2", "1 and 3".
	fillers = setOf("ו", "and", "רק", "only", "את", "מספר", "מספרים", "number", "numbers", "גם", "please", "בבקשה", "תודה", "thanks")
	// thumbsUp is a yes on its own; normalizing drops emoji, so it is read first.
	thumbsUp = []string{"👍", "👌", "✅"}
)

// parseAnswer reads a coach's reply to pending proposals. It reports false
// for anything that is not clearly an answer (a question, a new request,
// "yes" beside other words, "no" beside numbers), which then goes to the
// model as a normal message.
func parseAnswer(text string) (proposalAnswer, bool) {
	text = strings.TrimSpace(text)
	if text == "" || len([]rune(text)) > maxAnswerRunes {
		return proposalAnswer{}, false
	}
	for _, e := range thumbsUp {
		if strings.Trim(text, e+" !.") == "" {
			return proposalAnswer{kind: answerAll}, true
		}
	}
	// Words are letters; numbers are digit runs, so "1,3" and "1-3" (read
	// as a list, not a range) split; a number glued to a letter ("ו3")
	// splits too.
	var yes, no bool
	var nums []int
	for _, tok := range answerTokens(text) {
		if tok[0] >= '0' && tok[0] <= '9' {
			n, err := strconv.Atoi(tok)
			if err != nil || n < 1 || n > maxProposalNum {
				return proposalAnswer{}, false
			}
			nums = append(nums, n)
			continue
		}
		switch {
		case yesWords[tok]:
			yes = true
		case noWords[tok]:
			no = true
		case fillers[tok]:
		default:
			return proposalAnswer{}, false
		}
	}
	switch {
	case no && (yes || len(nums) > 0):
		return proposalAnswer{}, false
	case no:
		return proposalAnswer{kind: answerNone}, true
	case len(nums) > 0:
		slices.Sort(nums)
		return proposalAnswer{kind: answerSome, nums: slices.Compact(nums)}, true
	case yes:
		return proposalAnswer{kind: answerAll}, true
	}
	return proposalAnswer{}, false
}

// answerTokens splits text into lower-case letter runs and digit runs,
// dropping everything else. A decimal point between digits keeps the
// number whole, so "72.4" is one token that parseAnswer refuses.
func answerTokens(text string) []string {
	var out []string
	var cur []rune
	digits := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(strings.ToLower(text))
	for i, r := range rs {
		switch {
		case r >= '0' && r <= '9':
			if !digits {
				flush()
			}
			digits = true
			cur = append(cur, r)
		case r == '.' && digits && i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9':
			cur = append(cur, r) // a decimal: refused whole by Atoi
		case unicode.IsLetter(r):
			if digits {
				flush()
			}
			digits = false
			cur = append(cur, r)
		default:
			flush()
			digits = false
		}
	}
	flush()
	return out
}
