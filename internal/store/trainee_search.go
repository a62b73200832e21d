package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/translit"
)

// SearchDoc is what trainee search matches words against: the words of
// "first last" (SearchWords) and the lower-cased email. Phone digits are
// matched through their suffixes (DigitSuffixes) instead.
func SearchDoc(firstName, lastName string, email *string) string {
	doc := strings.Join(SearchWords(firstName+" "+lastName), " ")
	if email != nil && *email != "" {
		doc += " | " + strings.ToLower(*email)
	}
	return doc
}

// SearchWords is how search reads a name or a query: lower-cased (Unicode
// rules; Hebrew has no case), hyphens and dashes (the Hebrew maqaf too)
// read as spaces, split on runs of white space. "Ben-David" and
// "ben  david" are both [ben david].
func SearchWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(dashes, r)
	})
}

// dashes are the characters search reads as a space between words.
const dashes = "-\u2010\u2011\u2012\u2013\u2014\u2212\u05be"

// DigitSuffixes lists, without repeats, every suffix of the phone's E.164
// digits, of its national digits ("0501234567") and of each run of digits
// in texts (name, email). A digit string occurs in any of them exactly
// when it starts one of these suffixes, so a digit search is one prefix
// range over them.
func DigitSuffixes(e164 string, texts ...string) []string {
	runs := []string{phone.Digits(e164), nationalDigits(e164)}
	for _, text := range texts {
		runs = append(runs, strings.FieldsFunc(text, func(r rune) bool { return r < '0' || r > '9' })...)
	}
	seen := map[string]bool{}
	var out []string
	for _, digits := range runs {
		for i := 0; i < len(digits); i++ {
			if suffix := digits[i:]; !seen[suffix] {
				seen[suffix] = true
				out = append(out, suffix)
			}
		}
	}
	return out
}

// nationalDigits is the number as dialled inside its country, digits only
// ("+972501234567" -> "0501234567").
func nationalDigits(e164 string) string {
	num, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return ""
	}
	return phone.Digits(phonenumbers.Format(num, phonenumbers.NATIONAL))
}

// QueryWords are the words a query must all match: the digits of
// something typed like a phone ("050-123 45", "+972 50") as one word, else
// its SearchWords.
func QueryWords(q string) []string {
	q = strings.TrimSpace(q)
	hasDigit := false
	for _, r := range q {
		switch {
		case r >= '0' && r <= '9':
			hasDigit = true
		case strings.ContainsRune("+-(). ", r):
		default:
			return SearchWords(q)
		}
	}
	if hasDigit {
		return []string{phone.Digits(q)}
	}
	return SearchWords(q)
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ftsPhrase quotes term as one FTS5 phrase: with the trigram tokenizer that
// matches it as a substring.
func ftsPhrase(term string) string {
	return `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
}

// filterConds are the conditions of f other than its query, on trainees t.
func (s *studioStore) filterConds(f TraineeFilter) ([]string, []any) {
	where := []string{"t.studio_id = ?"}
	args := []any{s.studioID}
	if f.Status != "" {
		where = append(where, "t.status = ?")
		args = append(args, f.Status)
	}
	if f.CoachID != "" {
		where = append(where, "t.id IN (SELECT tc.trainee_id FROM trainee_coaches tc WHERE tc.studio_id = ? AND tc.coach_id = ?)")
		args = append(args, s.studioID, f.CoachID)
	}
	if f.Tag != "" {
		where = append(where, `t.id IN (SELECT tt.trainee_id FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id
			WHERE g.studio_id = ? AND g.name = ?)`)
		args = append(args, s.studioID, f.Tag)
	}
	if f.CreatedAfter != nil {
		where = append(where, "t.created_at > ?")
		args = append(args, ms(*f.CreatedAfter))
	}
	if f.UpdatedAfter != nil {
		where = append(where, "t.updated_at > ?")
		args = append(args, ms(*f.UpdatedAfter))
	}
	return where, args
}

// SearchTrainees finds the trainees every word of f.Q matches (QueryWords):
// a word of digits starts a suffix of the phone or of digits in the name
// or email; any other word is a substring of the first name, the last name
// or the email. Words match in any order.
func (s *studioStore) SearchTrainees(ctx context.Context, f TraineeFilter) (List[domain.Trainee], error) {
	for name, v := range map[string]string{"q": f.Q, "status": f.Status, "coachId": f.CoachID, "tag": f.Tag} {
		if bad := text.Problem(v); bad != "" {
			return List[domain.Trainee]{Items: []domain.Trainee{}}, fmt.Errorf("%w: %s %s", ErrInvalidText, name, bad)
		}
	}
	from := "FROM trainees t"
	selective := false // whether an index narrows the rows to few
	driven := false    // SQLite: whether an index lookup should drive the query
	where, args := s.filterConds(f)
	var phrases []string // SQLite: words of 3+ characters, one FTS5 query
	for _, word := range QueryWords(f.Q) {
		long := utf8.RuneCountInString(word) >= 3
		selective = selective || long
		switch {
		case f.Sounds && !isDigits(word):
			// A name written in another script or spelling: one of the
			// word's sound keys is one of the name's.
			keys := translit.Keys(word)
			if len(keys) == 0 {
				return List[domain.Trainee]{Items: []domain.Trainee{}}, nil
			}
			where = append(where, `t.seq IN (SELECT trainee_seq FROM trainee_name_keys
				WHERE studio_id = ? AND name_key IN (`+placeholders(len(keys))+`))`)
			args = append(args, s.studioID)
			for _, k := range keys {
				args = append(args, k)
			}
			selective, driven = true, true
		case isDigits(word):
			// A phone (or digits of a name or email): a prefix range over
			// the digit suffixes.
			where = append(where, `t.seq IN (SELECT trainee_seq FROM trainee_phone_suffixes
				WHERE studio_id = ? AND suffix >= ? AND suffix < ?)`)
			args = append(args, s.studioID, word, word+":") // ':' sorts right after '9'
			driven = true
		case s.engine == EngineSQLite && long:
			phrases = append(phrases, ftsPhrase(word))
		default:
			// Postgres: the pg_trgm GIN index serves this LIKE. SQLite:
			// a word under 3 characters has no trigram, so it is checked
			// on the rows the other words leave, or by a scan.
			where = append(where, `t.search_doc LIKE ? ESCAPE '\'`)
			args = append(args, likePattern(word))
		}
	}
	if len(phrases) > 0 {
		// Phrases side by side: FTS5 matches rows holding all of them.
		where = append(where, "t.seq IN (SELECT rowid FROM trainee_search WHERE trainee_search MATCH ?)")
		args = append(args, strings.Join(phrases, " "))
		driven = true
	}
	if s.engine == EngineSQLite && driven {
		// The few matching rowids drive the query, each joined to its
		// trainee, rather than a walk over every trainee of the studio
		// probing the match list (which the planner otherwise picks).
		from = "FROM trainees t NOT INDEXED"
	}
	cond := strings.Join(where, " AND ")
	limit, offset := pageArgs(f.Page)
	out := List[domain.Trainee]{Items: []domain.Trainee{}}
	// fetch reads the page into out.Items; extra scans the columns after
	// the trainee's.
	fetch := func(columns string, extra ...any) error {
		rows, err := s.query(ctx, `SELECT `+columns+` `+from+` WHERE `+cond+`
			ORDER BY t.last_name, t.first_name, t.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t domain.Trainee
			if err := scanTrainee(rows, &t, extra...); err != nil {
				return err
			}
			out.Items = append(out.Items, t)
		}
		return rows.Err()
	}
	if selective {
		// The index yields few rows: one pass returns the page and, with
		// each row, the total, instead of matching twice.
		if err := fetch(traineeColumns+`, count(*) OVER ()`, &out.Total); err != nil {
			return out, err
		}
		if len(out.Items) > 0 || offset == 0 {
			return out, s.loadTraineeLinks(ctx, out.Items)
		}
		// Past the end: the rows carried no total, so count.
	}
	if err := s.queryRow(ctx, `SELECT count(*) `+from+` WHERE `+cond, args...).Scan(&out.Total); err != nil {
		return out, err
	}
	if out.Total == 0 || offset >= out.Total {
		return out, nil
	}
	if err := fetch(traineeColumns); err != nil {
		return out, err
	}
	return out, s.loadTraineeLinks(ctx, out.Items)
}
