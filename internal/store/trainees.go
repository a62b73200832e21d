package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/text"
)

// studioStore is one studio's view of the store: every query carries its id.
type studioStore struct {
	*sqlStore
	studioID string
}

func (s *sqlStore) Studio(studioID string) StudioStore {
	return &studioStore{sqlStore: s, studioID: studioID}
}

// exists reports whether table holds id in this studio. table is one of
// the store's own constant names, never input.
func (s *studioStore) exists(ctx context.Context, q querier, table, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, s.q(`SELECT 1 FROM `+table+` WHERE studio_id = ? AND id = ?`), s.studioID, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// mustExist is exists with a not-found error naming the kind of id.
func (s *studioStore) mustExist(ctx context.Context, q querier, table, noun, id string) error {
	ok, err := s.exists(ctx, q, table, id)
	if err != nil {
		return err
	}
	if !ok {
		return missing(noun, id)
	}
	return nil
}

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

const traineeColumns = `t.id, t.first_name, t.last_name, t.phone, t.email, t.birth_date, t.gender, t.height_cm, t.weight_kg,
	t.goal, t.steps_goal, t.status, t.started_on, t.created_at, t.updated_at`

// traineeColumnCount is how many columns traineeColumns names.
var traineeColumnCount = strings.Count(traineeColumns, ",") + 1

func scanTrainee(row scanner, t *domain.Trainee, extra ...any) error {
	var email, birth, gender, goal, started sql.Null[string]
	var height, weight sql.Null[float64]
	var steps sql.Null[int]
	var created, updated int64
	if err := row.Scan(append([]any{&t.ID, &t.FirstName, &t.LastName, &t.Phone, &email, &birth, &gender, &height, &weight,
		&goal, &steps, &t.Status, &started, &created, &updated}, extra...)...); err != nil {
		return err
	}
	t.Email, t.BirthDate, t.Gender, t.Goal, t.StartedOn = valueOrNil(email), valueOrNil(birth), valueOrNil(gender), valueOrNil(goal), valueOrNil(started)
	t.HeightCm, t.WeightKg = valueOrNil(height), valueOrNil(weight)
	t.StepsGoal = valueOrNil(steps)
	t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
	t.Tags, t.CoachIDs = []string{}, []string{}
	return nil
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

// loadTraineeLinks fills Tags and CoachIDs of the trainees: one query for
// the whole page.
func (s *studioStore) loadTraineeLinks(ctx context.Context, ts []domain.Trainee) error {
	if len(ts) == 0 {
		return nil
	}
	index := make(map[string]*domain.Trainee, len(ts))
	ids := make([]any, len(ts))
	for i := range ts {
		index[ts[i].ID] = &ts[i]
		ids[i] = ts[i].ID
	}
	in := placeholders(len(ts))
	args := append(append([]any{s.studioID}, ids...), append([]any{s.studioID}, ids...)...)
	// studio_id || '': the primary key (trainee_id, …) drives, as in traineeWithLinks.
	rows, err := s.query(ctx, `SELECT tt.trainee_id, 'tag', g.name FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id
		WHERE tt.studio_id || '' = ? AND tt.trainee_id IN (`+in+`)
		UNION ALL
		SELECT trainee_id, 'coach', coach_id FROM trainee_coaches WHERE studio_id || '' = ? AND trainee_id IN (`+in+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, kind, value string
		if err := rows.Scan(&id, &kind, &value); err != nil {
			return err
		}
		if kind == "tag" {
			index[id].Tags = append(index[id].Tags, value)
		} else {
			index[id].CoachIDs = append(index[id].CoachIDs, value)
		}
	}
	for i := range ts {
		slices.Sort(ts[i].Tags)
		slices.Sort(ts[i].CoachIDs)
	}
	return rows.Err()
}

// traineeWithLinks reads one trainee with its tags and coaches in one
// statement: the trainee's row joined with the union of its links, one row
// per link (or one row of NULLs without any). The trainee's columns repeat
// on every row; a trainee has a few links, and one round trip is the cost
// that counts. where (with whereArg) picks the trainee's row; who (with
// whoArgs) names the same trainee's id for the links: "?" and the id, or a
// subquery. Built once: the statement is the same on every call.
//
// The links' studio is compared as an expression (studio_id joined to an
// empty string) on purpose: as a plain column it lets SQLite, without
// statistics, search the (studio_id, tag_id, …) index, that is every link
// of the studio, rather than the primary key (trainee_id, …), the
// trainee's few rows.
func traineeWithLinks(where, who string) string {
	return `SELECT ` + traineeColumns + `, l.kind, l.value FROM trainees t LEFT JOIN (
			SELECT 'tag' AS kind, g.name AS value FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id
			WHERE tt.studio_id || '' = ? AND tt.trainee_id = ` + who + `
			UNION ALL
			SELECT 'coach', coach_id FROM trainee_coaches WHERE studio_id || '' = ? AND trainee_id = ` + who + `
		) l ON 1 = 1
		WHERE t.studio_id = ? AND ` + where
}

var (
	traineeByID    = traineeWithLinks("t.id = ?", "?")
	traineeByPhone = traineeWithLinks("t.phone = ?", "(SELECT id FROM trainees WHERE studio_id = ? AND phone = ?)")
)

// getTrainee runs one of the traineeWithLinks statements: whoArgs follow
// the studio in each half of the links' union, whereArg the studio in the
// trainee's own condition.
func (s *studioStore) getTrainee(ctx context.Context, query string, whereArg any, whoArgs ...any) (domain.Trainee, error) {
	all := make([]any, 0, 2*(1+len(whoArgs))+2)
	for range 2 {
		all = append(append(all, s.studioID), whoArgs...)
	}
	all = append(all, s.studioID, whereArg)
	rows, err := s.query(ctx, query, all...)
	var t domain.Trainee
	if err != nil {
		return t, err
	}
	defer rows.Close()
	found := false
	var kind, value sql.Null[string]
	// After the first row the trainee's columns repeat: they are read into
	// reused raw buffers and passed over, so each link costs its own value only.
	var repeated []any
	for rows.Next() {
		if !found {
			if err := scanTrainee(rows, &t, &kind, &value); err != nil {
				return t, err
			}
			found = true
		} else {
			if repeated == nil {
				raw := make([]sql.RawBytes, traineeColumnCount)
				repeated = make([]any, 0, traineeColumnCount+2)
				for i := range raw {
					repeated = append(repeated, &raw[i])
				}
				repeated = append(repeated, &kind, &value)
			}
			if err := rows.Scan(repeated...); err != nil {
				return t, err
			}
		}
		switch {
		case !kind.Valid:
		case kind.V == "tag":
			t.Tags = append(t.Tags, value.V)
		default:
			t.CoachIDs = append(t.CoachIDs, value.V)
		}
	}
	if err := rows.Err(); err != nil {
		return t, err
	}
	if !found {
		return t, ErrNotFound
	}
	slices.Sort(t.Tags)
	slices.Sort(t.CoachIDs)
	return t, nil
}

func (s *studioStore) GetTrainee(ctx context.Context, id string) (domain.Trainee, error) {
	t, err := s.getTrainee(ctx, traineeByID, id, id)
	return t, notFoundAs(err, "trainee", id)
}

func (s *studioStore) TraineeByPhone(ctx context.Context, e164 string) (domain.Trainee, error) {
	t, err := s.getTrainee(ctx, traineeByPhone, e164, s.studioID, e164)
	if errors.Is(err, ErrNotFound) {
		return t, fmt.Errorf("%w: no trainee with phone %s in this studio", ErrNotFound, e164)
	}
	return t, err
}

// normalizeLinks trims, drops empties and duplicates, and sorts.
func normalizeLinks(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *studioStore) CreateTrainee(ctx context.Context, t *domain.Trainee) error {
	s.fillNew(&t.ID, ids.Trainee, &t.CreatedAt)
	if t.Status == "" {
		t.Status = domain.TraineeActive
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = t.CreatedAt
	}
	t.Tags, t.CoachIDs = normalizeLinks(t.Tags), normalizeLinks(t.CoachIDs)
	return s.atomic(ctx, func(q querier) error {
		// ON CONFLICT keeps a Postgres transaction usable after a taken
		// phone, so the trainee holding it can be named.
		res, err := q.ExecContext(ctx, s.q(`INSERT INTO trainees (id, studio_id, first_name, last_name, phone, email, birth_date, gender,
			height_cm, weight_kg, goal, steps_goal, status, started_on, created_at, updated_at, search_doc)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (studio_id, phone) DO NOTHING`),
			t.ID, s.studioID, t.FirstName, t.LastName, t.Phone, t.Email, t.BirthDate, t.Gender,
			t.HeightCm, t.WeightKg, t.Goal, t.StepsGoal, t.Status, t.StartedOn, ms(t.CreatedAt), ms(t.UpdatedAt),
			SearchDoc(t.FirstName, t.LastName, t.Email))
		if err != nil {
			return s.traineeWriteErr(err, t)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return s.phoneTaken(ctx, q, t)
		}
		return s.writeLinks(ctx, q, t)
	})
}

// phoneTaken is the conflict of a phone another trainee of the studio has.
func (s *studioStore) phoneTaken(ctx context.Context, q querier, t *domain.Trainee) error {
	var existing string
	err := q.QueryRowContext(ctx, s.q(`SELECT id FROM trainees WHERE studio_id = ? AND phone = ? AND id <> ?`), s.studioID, t.Phone, t.ID).Scan(&existing)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return &ConflictError{
		Message:    fmt.Sprintf("The phone %s already belongs to trainee %s in this studio; get_trainee with that id shows them.", t.Phone, existing),
		ExistingID: existing,
	}
}

// traineeWriteErr explains a constraint failure of a trainee write that
// the checks before it could not foresee (a concurrent write).
func (s *studioStore) traineeWriteErr(err error, t *domain.Trainee) error {
	switch {
	case isForeignKeyViolation(err):
		return missing("studio", s.studioID)
	case isUniqueViolation(err):
		return &ConflictError{Message: fmt.Sprintf("Another trainee of this studio took the phone %s or the id %s at the same moment; search_trainees finds it.", t.Phone, t.ID)}
	}
	return err
}

// writePhoneSuffixes replaces the rows that let search find t by digits.
func (s *studioStore) writePhoneSuffixes(ctx context.Context, q querier, t *domain.Trainee) error {
	email := ""
	if t.Email != nil {
		email = *t.Email
	}
	return writeDigitSuffixes(ctx, q, s.engine, s.studioID, t.ID, DigitSuffixes(t.Phone, t.FirstName, t.LastName, email))
}

func writeDigitSuffixes(ctx context.Context, q querier, engine, studioID, traineeID string, suffixes []string) error {
	return replaceTraineeKeys(ctx, q, engine, "trainee_phone_suffixes", "suffix", studioID, traineeID, suffixes)
}

// replaceTraineeKeys replaces the trainee's rows of a search key table
// (studio_id, column, trainee_seq) with one row per key, in one statement.
// table and column are the code's own constants, never input.
func replaceTraineeKeys(ctx context.Context, q querier, engine, table, column, studioID, traineeID string, keys []string) error {
	if _, err := q.ExecContext(ctx, rebind(engine, `DELETE FROM `+table+`
		WHERE trainee_seq = (SELECT seq FROM trainees WHERE studio_id = ? AND id = ?)`), studioID, traineeID); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	values := make([]string, len(keys))
	args := make([]any, 0, len(keys)+2)
	for i, k := range keys {
		values[i] = "SELECT CAST(? AS TEXT) AS " + column
		args = append(args, k)
	}
	args = append(args, studioID, traineeID)
	_, err := q.ExecContext(ctx, rebind(engine, `INSERT INTO `+table+` (studio_id, `+column+`, trainee_seq)
		SELECT t.studio_id, x.`+column+`, t.seq FROM trainees t, (`+strings.Join(values, " UNION ALL ")+`) x
		WHERE t.studio_id = ? AND t.id = ?`), args...)
	return err
}

// writeLinks replaces the trainee's tags (creating missing tags) and coaches,
// and the phone suffixes and name trigrams search uses.
func (s *studioStore) writeLinks(ctx context.Context, q querier, t *domain.Trainee) error {
	if err := s.writePhoneSuffixes(ctx, q, t); err != nil {
		return err
	}
	if err := writeTrigrams(ctx, q, s.engine, s.studioID, t.ID, t.FirstName, t.LastName); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, s.q(`DELETE FROM trainee_tags WHERE studio_id = ? AND trainee_id = ?`), s.studioID, t.ID); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, s.q(`DELETE FROM trainee_coaches WHERE studio_id = ? AND trainee_id = ?`), s.studioID, t.ID); err != nil {
		return err
	}
	if len(t.Tags) > 0 {
		created := ms(s.now())
		for _, name := range t.Tags {
			if _, err := q.ExecContext(ctx, s.q(`INSERT INTO tags (id, studio_id, name, created_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (studio_id, name) DO NOTHING`), ids.New(ids.Tag), s.studioID, name, created); err != nil {
				return err
			}
		}
		args := []any{t.ID, s.studioID}
		for _, name := range t.Tags {
			args = append(args, name)
		}
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO trainee_tags (studio_id, trainee_id, tag_id)
			SELECT studio_id, ?, id FROM tags WHERE studio_id = ? AND name IN (`+placeholders(len(t.Tags))+`)`), args...); err != nil {
			return err
		}
	}
	if len(t.CoachIDs) > 0 {
		args := []any{s.studioID}
		for _, id := range t.CoachIDs {
			args = append(args, id)
		}
		rows, err := q.QueryContext(ctx, s.q(`SELECT id FROM coaches WHERE studio_id = ? AND id IN (`+placeholders(len(t.CoachIDs))+`)`), args...)
		if err != nil {
			return err
		}
		found := map[string]bool{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			found[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range t.CoachIDs {
			if !found[id] {
				return missing("coach", id)
			}
		}
		values := make([]string, len(t.CoachIDs))
		vargs := make([]any, 0, 3*len(t.CoachIDs))
		for i, id := range t.CoachIDs {
			values[i] = "(?, ?, ?)"
			vargs = append(vargs, s.studioID, t.ID, id)
		}
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO trainee_coaches (studio_id, trainee_id, coach_id) VALUES `+strings.Join(values, ", ")), vargs...); err != nil {
			return err
		}
	}
	return nil
}

// UpdateTrainee writes every field of t, the tag and coach lists included
// (the lane merges a PATCH onto the current trainee first).
func (s *studioStore) UpdateTrainee(ctx context.Context, t *domain.Trainee) error {
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = s.now()
	}
	t.Tags, t.CoachIDs = normalizeLinks(t.Tags), normalizeLinks(t.CoachIDs)
	if t.Status == "" {
		t.Status = domain.TraineeActive
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", t.ID); err != nil {
			return err
		}
		if err := s.phoneTaken(ctx, q, t); err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, s.q(`UPDATE trainees SET first_name = ?, last_name = ?, phone = ?, email = ?, birth_date = ?, gender = ?,
			height_cm = ?, weight_kg = ?, goal = ?, steps_goal = ?, status = ?, started_on = ?, updated_at = ?, search_doc = ?
			WHERE studio_id = ? AND id = ?`),
			t.FirstName, t.LastName, t.Phone, t.Email, t.BirthDate, t.Gender, t.HeightCm, t.WeightKg, t.Goal, t.StepsGoal,
			t.Status, t.StartedOn, ms(t.UpdatedAt), SearchDoc(t.FirstName, t.LastName, t.Email), s.studioID, t.ID)
		if err := affected(res, s.traineeWriteErr(err, t), "trainee", t.ID); err != nil {
			return err
		}
		var created int64
		if err := q.QueryRowContext(ctx, s.q(`SELECT created_at FROM trainees WHERE studio_id = ? AND id = ?`), s.studioID, t.ID).Scan(&created); err != nil {
			return err
		}
		t.CreatedAt = fromMS(created)
		return s.writeLinks(ctx, q, t)
	})
}

func (s *studioStore) DeleteTrainee(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM trainees WHERE studio_id = ? AND id = ?`, s.studioID, id)
	return affected(res, err, "trainee", id)
}

func (s *studioStore) CountActiveTrainees(ctx context.Context) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM trainees WHERE studio_id = ? AND status = ?`, s.studioID, domain.TraineeActive).Scan(&n)
	return n, err
}
