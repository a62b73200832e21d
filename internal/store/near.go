package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/translit"
)

// Near matches: when no trainee matches a query's words, the names most
// like it by trigram similarity, the measure of Postgres's pg_trgm. Both
// engines keep the same trigram rows (trainee_trigrams, written with the
// trainee) and score in Go, so they answer the same near matches for the
// same data; pg_trgm's own word splitting follows the database's locale.

// NearThreshold is the least similarity a near match has (pg_trgm's
// default for %).
const NearThreshold = 0.3

// nearCandidates is how many trainees sharing the most trigrams with the
// query are scored; it bounds the work at any studio size.
const nearCandidates = 100

// Trigrams is the set, sorted, of the trigrams of s as pg_trgm makes them:
// each lower-cased word (letters, marks and digits; hyphens and spaces
// separate words) padded with two spaces before and one after, cut into
// every run of three characters.
func Trigrams(s string) []string {
	var out []string
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		rs := []rune("  " + w + " ")
		for i := 0; i+3 <= len(rs); i++ {
			out = append(out, string(rs[i:i+3]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Similarity is pg_trgm's similarity of two trigram sets (sorted, as
// Trigrams returns them): shared trigrams over all distinct ones, 0 to 1.
func Similarity(a, b []string) float64 {
	shared, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			shared++
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
	if all := len(a) + len(b) - shared; all > 0 {
		return float64(shared) / float64(all)
	}
	return 0
}

// NameSimilarity is how near a query is to a trainee's name: its best
// similarity to the whole name, the first name or the last name, so
// "Goldburg" is as near to "Dana Goldberg" as to "Goldberg".
func NameSimilarity(query []string, firstName, lastName string) float64 {
	best := Similarity(query, Trigrams(firstName+" "+lastName))
	for _, part := range []string{firstName, lastName} {
		best = max(best, Similarity(query, Trigrams(part)))
	}
	return best
}

// NearTrainees answers up to limit trainees passing f's filters whose name
// is at least NearThreshold similar to f.Q, most similar first (then by
// last name, first name, id). It ignores f.Page.
func (s *studioStore) NearTrainees(ctx context.Context, f TraineeFilter, limit int) ([]domain.Trainee, error) {
	query := Trigrams(f.Q)
	if len(query) == 0 || limit <= 0 {
		return []domain.Trainee{}, nil
	}
	// The candidates: the trainees sharing the most trigrams with the
	// query, of those sharing enough to reach the threshold (a name's
	// similarity is at most shared/len(query)), counted on the trigram
	// index alone. Without filters the index also picks the top ones;
	// with filters every candidate is joined to its trainee first.
	where, filterArgs := s.filterConds(f)
	args := []any{s.studioID}
	for _, g := range query {
		args = append(args, g)
	}
	args = append(args, len(query)*3) // NearThreshold = 3/10
	counted := `SELECT g.trainee_seq, count(*) AS shared FROM trainee_trigrams g
		WHERE g.studio_id = ? AND g.trigram IN (` + placeholders(len(query)) + `)
		GROUP BY g.trainee_seq HAVING 10 * count(*) >= ?`
	var rows *sql.Rows
	var err error
	if len(where) == 1 { // the studio alone
		rows, err = s.query(ctx, `SELECT `+traineeColumns+` FROM (`+counted+`
			ORDER BY shared DESC, g.trainee_seq LIMIT ?) c JOIN trainees t ON t.seq = c.trainee_seq`,
			append(args, nearCandidates)...)
	} else {
		rows, err = s.query(ctx, `SELECT `+traineeColumns+` FROM (`+counted+`) c JOIN trainees t ON t.seq = c.trainee_seq
			WHERE `+strings.Join(where, " AND ")+`
			ORDER BY c.shared DESC, t.seq LIMIT ?`, append(append(args, filterArgs...), nearCandidates)...)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type scored struct {
		t     domain.Trainee
		score float64
	}
	var found []scored
	for rows.Next() {
		var t domain.Trainee
		if err := scanTrainee(rows, &t); err != nil {
			return nil, err
		}
		if score := NameSimilarity(query, t.FirstName, t.LastName); score >= NearThreshold {
			found = append(found, scored{t, score})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.t.LastName+"\x00"+a.t.FirstName+"\x00"+a.t.ID, b.t.LastName+"\x00"+b.t.FirstName+"\x00"+b.t.ID)
	})
	out := make([]domain.Trainee, 0, min(limit, len(found)))
	for _, c := range found[:min(limit, len(found))] {
		out = append(out, c.t)
	}
	return out, s.loadTraineeLinks(ctx, out)
}

// writeTrigrams replaces the rows that let near matches find t.
func writeTrigrams(ctx context.Context, q querier, engine, studioID, traineeID, firstName, lastName string) error {
	return replaceTraineeKeys(ctx, q, engine, "trainee_trigrams", "trigram", studioID, traineeID, Trigrams(firstName+" "+lastName))
}

// writeNameKeys replaces the rows that let a search in one script find t's
// name written in the other (translit.NameKeys).
func writeNameKeys(ctx context.Context, q querier, engine, studioID, traineeID, firstName, lastName string) error {
	return replaceTraineeKeys(ctx, q, engine, "trainee_name_keys", "name_key", studioID, traineeID, translit.NameKeys(firstName+" "+lastName))
}
