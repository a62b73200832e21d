package store

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT * FROM t WHERE a = ? AND b IN (?, ?)`, `SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)`},
		{`SELECT '?' || ? FROM t`, `SELECT '?' || $1 FROM t`},
		{`SELECT 'it''s ?', ? FROM t`, `SELECT 'it''s ?', $1 FROM t`},
		{`WHERE x LIKE ? ESCAPE '\' AND y = ?`, `WHERE x LIKE $1 ESCAPE '\' AND y = $2`},
	}
	for _, c := range cases {
		if got := rebind(EnginePostgres, c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := rebind(EngineSQLite, c.in); got != c.in {
			t.Errorf("sqlite rebind changed %q to %q", c.in, got)
		}
	}
}

// FuzzRebind: every ? outside a string literal becomes $1..$n in order, and
// nothing else changes.
func FuzzRebind(f *testing.F) {
	f.Add(`SELECT * FROM t WHERE a = ? AND b = '?'`)
	f.Add(`'unterminated ? `)
	f.Add(`??'?'?`)
	f.Add(`$1 ? $2`)
	f.Fuzz(func(t *testing.T, q string) {
		out := rebind(EnginePostgres, q)
		// Undo: replace $k (k = 1..n, in order) back by ?.
		var b strings.Builder
		n, inString := 0, false
		for i := 0; i < len(q); i++ {
			c := q[i]
			if c == '\'' {
				inString = !inString
			}
			if c == '?' && !inString {
				n++
				b.WriteString("$" + strconv.Itoa(n))
				continue
			}
			b.WriteByte(c)
		}
		if out != b.String() {
			t.Fatalf("rebind(%q) = %q, want %q", q, out, b.String())
		}
		if again := rebind(EnginePostgres, q); again != out {
			t.Fatalf("cached rebind differs: %q vs %q", again, out)
		}
	})
}

func TestSQLiteDSN(t *testing.T) {
	// A file: URI's options are dropped (ours are set); a plain path's '?'
	// is part of the file's name.
	if dsn := SQLiteDSN("/tmp/x.db?mode=ro"); !strings.HasPrefix(dsn, "file:/tmp/x.db%3Fmode=ro?") {
		t.Errorf("SQLiteDSN of a plain path holding '?' = %q", dsn)
	}
	dsn := SQLiteDSN("file:/tmp/x.db?mode=ro")
	for _, want := range []string{"file:/tmp/x.db?", "_txlock=immediate", "busy_timeout%2830000%29", "journal_mode%28WAL%29", "synchronous%28NORMAL%29", "foreign_keys%28ON%29"} {
		if !strings.Contains(dsn, want) {
			t.Errorf("SQLiteDSN = %q, missing %q", dsn, want)
		}
	}
	if strings.Contains(dsn, "mode=ro") {
		t.Errorf("SQLiteDSN kept the caller's options: %q", dsn)
	}
	if got := SQLiteDSN(""); !strings.HasPrefix(got, "file:"+DefaultSQLitePath+"?") {
		t.Errorf("SQLiteDSN(\"\") = %q, want the default file", got)
	}
}

func TestEngineOf(t *testing.T) {
	cases := map[string]string{
		"":                                    EngineSQLite,
		"perform.db":                          EngineSQLite,
		"/var/lib/perform/data.db":            EngineSQLite,
		"postgres://u@h/db":                   EnginePostgres,
		"postgresql://u@h/db?sslmode=disable": EnginePostgres,
		"POSTGRES://u@h/db":                   EnginePostgres,
		"postgres.db":                         EngineSQLite,
	}
	for in, want := range cases {
		if got := EngineOf(in); got != want {
			t.Errorf("EngineOf(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzSQLiteDSN: the path SQLite reads back from the DSN (up to the first
// '?' or '#', %HH decoded) is the path given.
func FuzzSQLiteDSN(f *testing.F) {
	for _, s := range []string{"perform.db", "/tmp/a#b.db", "100%.db", "a%23b.db", "x y.db", "/d/#/%/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if path == "" || strings.HasPrefix(path, "file:") || strings.ContainsRune(path, '?') {
			t.Skip()
		}
		rest := strings.TrimPrefix(SQLiteDSN(path), "file:")
		end := strings.IndexAny(rest, "?#")
		if end < 0 {
			t.Fatalf("SQLiteDSN(%q) has no options", path)
		}
		got, err := url.PathUnescape(rest[:end])
		if err != nil || got != path {
			t.Fatalf("SQLiteDSN(%q): SQLite reads the path %q (%v)", path, got, err)
		}
	})
}
