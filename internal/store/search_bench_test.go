package store_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/translit"
)

// Trainee search in one studio of 1k, 10k and 100k trainees, on both
// engines. Last names are three syllables drawn so that each one is shared
// by about 50 trainees at every size: the name query is selective (~50
// matches, exact total) whatever the studio's size.
//
//	go test -run '^$' -bench SearchTrainees -benchmem ./internal/store/
func BenchmarkSearchTrainees(b *testing.B) {
	openers := map[string]func(testing.TB) store.Store{
		"sqlite":   func(tb testing.TB) store.Store { return storetest.OpenSQLite(tb) },
		"postgres": func(tb testing.TB) store.Store { return storetest.OpenPostgres(tb) },
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range testkit.Sizes(1_000, 10_000, 100_000) {
			b.Run(fmt.Sprintf("%s/%dk", engine, n/1000), func(b *testing.B) {
				st := openers[engine](b)
				ctx := context.Background()
				studio := seedTrainees(b, st, n)
				ss := st.Studio(studio.ID)
				name := lastName(7, n)
				phone := benchPhone(n / 2)
				national := "0" + strings.TrimPrefix(phone, "+972")

				want, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: name, Page: store.Page{Limit: 50}})
				if err != nil || want.Total < 20 || want.Total > 100 {
					b.Fatalf("name query %q matches %d (%v), want a selective query", name, want.Total, err)
				}
				b.Run("name", func(b *testing.B) {
					measure(b, func() {
						l, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: name, Page: store.Page{Limit: 50}})
						if err != nil || l.Total != want.Total {
							b.Fatalf("search %q: total %d, %v", name, l.Total, err)
						}
					})
				})
				// The words of a name in the other order, as people type it:
				// the trainees of that last name who have that first name
				// (all of them from 10k up; at 1k the last names repeat
				// every 20 trainees and the first names every 40).
				first := benchFirst[7%len(benchFirst)]
				words := name + "  " + strings.ToLower(first)
				both := 0
				for i := range n {
					if lastName(i, n) == name && benchFirst[i%len(benchFirst)] == first {
						both++
					}
				}
				wantWords, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: words, Page: store.Page{Limit: 50}})
				if err != nil || both == 0 || wantWords.Total != both {
					b.Fatalf("words query %q matches %d (%v), want %d", words, wantWords.Total, err, both)
				}
				b.Run("words", func(b *testing.B) {
					measure(b, func() {
						l, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: words, Page: store.Page{Limit: 50}})
						if err != nil || l.Total != wantWords.Total {
							b.Fatalf("search %q: total %d, %v", words, l.Total, err)
						}
					})
				})
				// A typo in the last name: no exact match, then the near
				// matches, as the lane answers it.
				typo := name[:3] + "x" + name[4:]
				b.Run("near", func(b *testing.B) {
					measure(b, func() {
						f := store.TraineeFilter{Q: typo, Page: store.Page{Limit: 50}}
						l, err := ss.SearchTrainees(ctx, f)
						if err != nil || l.Total != 0 {
							b.Fatalf("search %q: total %d, %v", typo, l.Total, err)
						}
						near, err := ss.NearTrainees(ctx, f, 5)
						if err != nil || len(near) == 0 || near[0].LastName != name {
							b.Fatalf("near %q: %v, want %s first", typo, near, name)
						}
					})
				})
				// The same with a filter, which joins trigram rows to trainees.
				b.Run("near-filtered", func(b *testing.B) {
					measure(b, func() {
						f := store.TraineeFilter{Q: typo, Status: domain.TraineeActive, Page: store.Page{Limit: 50}}
						near, err := ss.NearTrainees(ctx, f, 5)
						if err != nil || len(near) == 0 || near[0].LastName != name {
							b.Fatalf("near %q: %v, want %s first", typo, near, name)
						}
					})
				})
				// The last name written in Hebrew: no word matches, and the
				// search by sound keys finds the same trainees (and those
				// whose names sound alike).
				hebrew := hebrewOf(name)
				b.Run("sounds", func(b *testing.B) {
					measure(b, func() {
						l, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: hebrew, Sounds: true, Page: store.Page{Limit: 50}})
						if err != nil || l.Total < want.Total {
							b.Fatalf("sounds %q: total %d, %v; want at least %d", hebrew, l.Total, err, want.Total)
						}
					})
				})
				b.Run("phone-search", func(b *testing.B) {
					measure(b, func() {
						l, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: national, Page: store.Page{Limit: 50}})
						if err != nil || l.Total != 1 || l.Items[0].Phone != phone {
							b.Fatalf("search %q: %+v, %v", national, l, err)
						}
					})
				})
				b.Run("by-phone", func(b *testing.B) {
					measure(b, func() {
						tr, err := ss.TraineeByPhone(ctx, phone)
						if err != nil || tr.Phone != phone {
							b.Fatalf("TraineeByPhone %s: %v", phone, err)
						}
					})
				})
			})
		}
	}
}

// seedPhoneSuffixes writes the suffix rows search uses to find phones, as
// CreateTrainee does, in batches.
func seedPhoneSuffixes(ctx context.Context, tx store.Store, studioID string) error {
	rows, err := tx.SQLTx().QueryContext(ctx, tx.Rebind(`SELECT seq, phone, first_name, last_name, email FROM trainees WHERE studio_id = ?`), studioID)
	if err != nil {
		return err
	}
	var args []any
	for rows.Next() {
		var seq int64
		var phone, first, last, email string
		if err := rows.Scan(&seq, &phone, &first, &last, &email); err != nil {
			rows.Close()
			return err
		}
		for _, suffix := range store.DigitSuffixes(phone, first, last, email) {
			args = append(args, studioID, suffix, seq)
		}
	}
	rows.Close()
	const perInsert = 1000 // rows of three values
	for from := 0; from < len(args); from += 3 * perInsert {
		chunk := args[from:min(len(args), from+3*perInsert)]
		q := `INSERT INTO trainee_phone_suffixes (studio_id, suffix, trainee_seq) VALUES (?, ?, ?)` + strings.Repeat(", (?, ?, ?)", len(chunk)/3-1)
		if _, err := tx.SQLTx().ExecContext(ctx, tx.Rebind(q), chunk...); err != nil {
			return err
		}
	}
	return nil
}

// seedTrigrams writes the name trigrams near matches use, as CreateTrainee
// does, in batches.
func seedTrigrams(ctx context.Context, tx store.Store, studioID string) error {
	rows, err := tx.SQLTx().QueryContext(ctx, tx.Rebind(`SELECT seq, first_name, last_name FROM trainees WHERE studio_id = ?`), studioID)
	if err != nil {
		return err
	}
	var args, keys []any
	for rows.Next() {
		var seq int64
		var first, last string
		if err := rows.Scan(&seq, &first, &last); err != nil {
			rows.Close()
			return err
		}
		for _, g := range store.Trigrams(first + " " + last) {
			args = append(args, studioID, g, seq)
		}
		for _, k := range translit.NameKeys(first + " " + last) {
			keys = append(keys, studioID, k, seq)
		}
	}
	rows.Close()
	for table, rows := range map[string][]any{"trainee_trigrams (studio_id, trigram, trainee_seq)": args, "trainee_name_keys (studio_id, name_key, trainee_seq)": keys} {
		const perInsert = 1000 // rows of three values
		for from := 0; from < len(rows); from += 3 * perInsert {
			chunk := rows[from:min(len(rows), from+3*perInsert)]
			q := `INSERT INTO ` + table + ` VALUES (?, ?, ?)` + strings.Repeat(", (?, ?, ?)", len(chunk)/3-1)
			if _, err := tx.SQLTx().ExecContext(ctx, tx.Rebind(q), chunk...); err != nil {
				return err
			}
		}
	}
	return nil
}

// hebrewOf writes a bench last name (three Latin syllables) in Hebrew
// letters, as a coach typing it in Hebrew would.
func hebrewOf(name string) string {
	letters := map[string]string{"k": "ק", "l": "ל", "m": "מ", "r": "ר", "s": "ס", "t": "ט", "n": "נ", "v": "ב", "p": "פ",
		"d": "ד", "g": "ג", "b": "ב", "z": "ז", "f": "פ", "sh": "ש", "h": "ה", "o": "ו", "u": "ו", "i": "י", "a": "", "e": ""}
	var out strings.Builder
	rest := strings.ToLower(name)
	for rest != "" {
		if strings.HasPrefix(rest, "sh") {
			out.WriteString(letters["sh"])
			rest = rest[2:]
			continue
		}
		out.WriteString(letters[rest[:1]])
		rest = rest[1:]
	}
	return out.String()
}

// measure runs op as the benchmark's loop and reports its allocations,
// its median time (p50-ns) and its process CPU time (cpu-ns/op).
func measure(b *testing.B, op func()) {
	b.ReportAllocs()
	defer reportCPU(b)()
	lap, done := reportP50(b)
	defer done()
	for b.Loop() {
		lap()
		op()
	}
}

// reportP50 adds p50-ns, the median time of an operation (what the search
// figures are stated in): lap, called first in each iteration, times the
// iteration before it.
func reportP50(b *testing.B) (lap func(), done func()) {
	var laps []time.Duration
	var last time.Time
	lap = func() {
		now := time.Now()
		if !last.IsZero() {
			laps = append(laps, now.Sub(last))
		}
		last = now
	}
	done = func() {
		if len(laps) > 0 {
			slices.Sort(laps)
			b.ReportMetric(float64(laps[len(laps)/2]), "p50-ns")
		}
	}
	return lap, done
}

// reportCPU adds cpu-ns/op, the process CPU time per operation: steadier
// than ns/op when other work shares the machine's cores.
func reportCPU(b *testing.B) func() {
	start := testkit.ProcessCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(testkit.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

var (
	benchFirst = strings.Fields("Dana Noa Yael Maya Tamar Shira Lior Omer Itai Yonatan Avi Eitan Ori Roni Gal Tal Adi Shani Michal Hila " +
		"John Emma Olivia Liam Noah Sophia James Mia Lucas Ava Ethan Chloe Daniel Grace Adam Sarah David Rachel Ben Leah")
	benchSyllables = strings.Fields("ka lo mi re su ta ne vo pi da go ru be zi fa no le ma shi ko ra ve tu bi na do se gu ha li")
)

// lastName is the i-th of n/50 three-syllable last names.
func lastName(i, n int) string {
	distinct := max(n/50, 1)
	i %= distinct
	s := len(benchSyllables)
	name := benchSyllables[i%s] + benchSyllables[(i/s)%s] + benchSyllables[(i/(s*s)+i)%s]
	return strings.ToUpper(name[:1]) + name[1:]
}

// benchPhone is the i-th of distinct mobile numbers spread like real ones
// (multiplying by a number coprime to 10^7 permutes the 7 digits).
func benchPhone(i int) string {
	prefixes := []string{"50", "52", "53", "54", "55", "58"}
	return fmt.Sprintf("+972%s%07d", prefixes[i%len(prefixes)], (i/len(prefixes))*4435761%10_000_000)
}

// seedTrainees writes n trainees into a fresh studio in one transaction of
// multi-row inserts, then refreshes the planner's statistics.
func seedTrainees(tb testing.TB, st store.Store, n int) domain.Studio {
	tb.Helper()
	ctx := context.Background()
	studio := domain.Studio{Name: "Bench", Slug: "bench-" + strings.ToLower(ids.New(ids.Studio)[20:])}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	const batch = 500
	created := time.Now().Add(-time.Hour).UnixMilli()
	err := st.InTx(ctx, func(tx store.Store) error {
		for from := 0; from < n; from += batch {
			rows := min(batch, n-from)
			var q strings.Builder
			q.WriteString(`INSERT INTO trainees (id, studio_id, first_name, last_name, phone, email, status, created_at, updated_at, search_doc) VALUES `)
			args := make([]any, 0, rows*10)
			for i := from; i < from+rows; i++ {
				if i > from {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
				first, last, phone := benchFirst[i%len(benchFirst)], lastName(i, n), benchPhone(i)
				email := fmt.Sprintf("%s.%d@example.com", strings.ToLower(first), i)
				args = append(args, ids.New(ids.Trainee), studio.ID, first, last, phone, email, domain.TraineeActive,
					created+int64(i), created+int64(i), store.SearchDoc(first, last, &email))
			}
			if _, err := tx.SQLTx().ExecContext(ctx, tx.Rebind(q.String()), args...); err != nil {
				return err
			}
		}
		if err := seedPhoneSuffixes(ctx, tx, studio.ID); err != nil {
			return err
		}
		return seedTrigrams(ctx, tx, studio.ID)
	})
	if err != nil {
		tb.Fatal(err)
	}
	// Postgres: autovacuum would vacuum and analyze the new rows soon; do
	// it now. SQLite: the store never runs ANALYZE, so neither does the
	// benchmark.
	if st.Engine() == store.EnginePostgres {
		for _, table := range []string{"trainees", "trainee_phone_suffixes", "trainee_trigrams"} {
			if _, err := st.DB().ExecContext(ctx, "VACUUM ANALYZE "+table); err != nil {
				tb.Fatal(err)
			}
		}
	}
	// BENCH_OPTIMIZE=1 measures the database after the daily upkeep.
	if os.Getenv("BENCH_OPTIMIZE") != "" {
		if err := store.Optimize(ctx, st); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("seeded %d trainees on %s in %v", n, st.Engine(), time.Since(start).Round(time.Millisecond))
	return studio
}
