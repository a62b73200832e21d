// Command perform runs the Perform server and administers it.
//
//	perform serve                         serve the lane, MCP, agent webhook, health and metrics
//	perform demo                          seed the demo studio, mint a key, then serve
//	perform migrate                       apply database migrations
//	perform studio create --name --slug   create a studio
//	perform studio payments-webhook       a studio's payments webhook
//	perform key create|list|scopes|revoke manage a studio's API keys
//	perform oauth client add              add an OAuth client (name, redirect URIs)
//	perform audit --studio SLUG           read a studio's audit trail
//	perform agent cost [--hours N]        the agent's model usage and cost per studio
//	perform --version                     say which build this is
//
// Configuration comes from the environment (see internal/config); flags
// override it. Every command applies pending migrations before it touches
// the database. Errors are one sentence on stderr; the exit code is 1 for a
// failure and 2 for a usage mistake.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/otherwise/perform/internal/buildinfo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// env is what one command invocation runs with.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

type command struct {
	name, args, summary string
	run                 func(ctx context.Context, e env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "[--port N] [--host ADDR] [--database-url URL] [--redis-url URL] [--public-url URL] [--log-level LEVEL]", "Serve the automation lane, MCP endpoint, agent webhook, health and metrics.", cmdServe},
		{"demo", "[serve flags]", "Seed the demo studio (once), mint a fresh API key named demo, print the URLs and serve.", cmdDemo},
		{"migrate", "[--database-url URL]", "Apply pending database migrations.", cmdMigrate},
		{"studio create", "--name NAME --slug SLUG [--region IL] [--tier free|pro|business]", "Create a studio.", cmdStudioCreate},
		{"studio settings", "--studio SLUG [--trainee-assistant on|off] [--digest-template NAME|none]", "Show a studio's settings, turn the WhatsApp assistant on or off for its trainees, or name the template of the coaches' morning digest.", cmdStudioSettings},
		{"studio payments-webhook", "--studio SLUG [--do status|enable|rotate|disable|test-event] [--signing-secret S] [--keep-url] [--trainee ID --amount N]", "Show, turn on, rotate or turn off a studio's payments webhook, or sign a test event for it; a URL and secret are printed once, on stdout.", cmdPaymentsWebhook},
		{"key create", "--studio SLUG --name NAME [--kind studio|platform]", "Mint an API key; it is printed once, alone on stdout.", cmdKeyCreate},
		{"key list", "--studio SLUG", "List a studio's keys, one a line: prefix, id, name, scopes, created, last used, live or revoked.", cmdKeyList},
		{"key scopes", "PREFIX_OR_ID_OR_KEY --add|--remove|--set SCOPES", "Change a live key's scopes (studio:read, studio:write, studio:admin, billing): add or remove some, or set the whole list; the key holds them from its next request.", cmdKeyScopes},
		{"key revoke", "PREFIX_OR_ID_OR_KEY", "Revoke a key, named by its prefix, its id or the whole key; the next request with it is refused.", cmdKeyRevoke},
		{"oauth client add", "--name NAME --redirect-uri URI [--redirect-uri URI…] [--public]", "Add an OAuth client; its id is printed on stdout, then a confidential client's secret (shown once).", cmdOAuthClientAdd},
		{"audit", "--studio SLUG [--limit N] [--offset N]", "Print a studio's audit trail, newest first.", cmdAudit},
		{"agent cost", "[--hours N]", "Report the WhatsApp agent's model usage of the last hours per studio: turns, calls, tokens and a cost estimate.", cmdAgentCost},
		{"help", "", "Show this help; perform COMMAND -h shows one command's flags.", nil},
		{"--version", "", "Print which build this is.", nil},
	}
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := env{stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 {
		printHelp(stderr)
		return 2
	}
	if isHelp(args[0]) {
		printHelp(stdout)
		return 0
	}
	if isVersion(args[0]) {
		fmt.Fprintln(stdout, buildinfo.String("perform"))
		return 0
	}
	cmd, rest, ok := find(args)
	if !ok {
		// "perform key" or "perform key -h": the group's commands.
		if group := groupOf(args[0]); len(group) > 0 && (len(args) == 1 || isHelp(args[1])) {
			w, code := stdout, 0
			if len(args) == 1 {
				w, code = stderr, 2
			}
			fmt.Fprintf(w, "Usage: perform %s COMMAND [flags]\n\nCommands:\n", args[0])
			for _, c := range group {
				printCommand(w, c)
			}
			return code
		}
		fmt.Fprintf(stderr, "perform has no command %q; run perform help to see the commands.\n", strings.Join(args[:min(2, len(args))], " "))
		return 2
	}
	err := cmd.run(ctx, e, rest)
	var ue usageError
	var he helpError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &he):
		fmt.Fprintf(stdout, "Usage: perform %s %s\n%s\n", cmd.name, cmd.args, cmd.summary)
		if flags := flagLines(he.fs); flags != "" {
			fmt.Fprintf(stdout, "\nFlags:\n%s", flags)
		}
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s\nUsage: perform %s %s\n", sentence(ue.msg), cmd.name, cmd.args)
		return 2
	default:
		fmt.Fprintln(stderr, sentence(err.Error()))
		return 1
	}
}

// find matches the longest command name ("key create" before "key").
func find(args []string) (command, []string, bool) {
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if c.run != nil && len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			return c, args[len(words):], true
		}
	}
	return command{}, nil, false
}

func isHelp(s string) bool { return s == "help" || s == "-h" || s == "--help" || s == "-help" }

func isVersion(s string) bool { return s == "--version" || s == "-version" || s == "version" }

// groupOf is the commands whose first word is word ("key": create, list, revoke).
func groupOf(word string) []command {
	var out []command
	for _, c := range commands() {
		if c.run != nil && strings.HasPrefix(c.name, word+" ") {
			out = append(out, c)
		}
	}
	return out
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "perform runs and administers the Perform server.")
	fmt.Fprintln(w, "\nUsage: perform COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		printCommand(w, c)
	}
	fmt.Fprintln(w, "\nConfiguration is read from the environment (PORT, PERFORM_DATABASE_URL, PERFORM_REDIS_URL, …; see docs/configuration.md); flags override it.")
}

// printCommand prints a command's summary, synopsis and every flag.
func printCommand(w io.Writer, c command) {
	fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	if c.args != "" {
		fmt.Fprintf(w, "  %-14s   %s\n", "", c.args)
	}
	if fs := flagsOf(c); fs != nil {
		for _, line := range strings.SplitAfter(flagLines(fs), "\n") {
			if line != "" {
				fmt.Fprintf(w, "  %-14s %s", "", line)
			}
		}
	}
}

// flagsOf is the flag set a command parses, found by asking it for help
// with an empty environment (so the defaults shown are the documented ones).
func flagsOf(c command) *flag.FlagSet {
	if c.run == nil {
		return nil
	}
	quiet := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	var he helpError
	if errors.As(c.run(context.Background(), quiet, []string{"-h"}), &he) {
		return he.fs
	}
	return nil
}

// flagLines lists fs's flags, one a line: "--name VALUE  usage (default D)".
func flagLines(fs *flag.FlagSet) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		switch {
		case f.Name == "log-level":
			name = "level"
		case name == "value":
			name = "VALUE"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  --%s %s\t%s%s\n", f.Name, strings.ToUpper(name), usage, def)
	})
	tw.Flush()
	return b.String()
}

// sentence ends msg with a full stop unless it already ends a sentence.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" || strings.HasSuffix(msg, ".") || strings.HasSuffix(msg, "?") || strings.HasSuffix(msg, "!") {
		return msg
	}
	return msg + "."
}

// newFlags makes a flag set that prints nothing itself: run reports its
// errors as usage errors, in one sentence.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("perform "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// helpError is -h or --help given to a command: run prints its usage
// and the flag set's flags.
type helpError struct{ fs *flag.FlagSet }

func (helpError) Error() string { return "help requested" }

// parse parses args; positional arguments may come before or after flags.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpError{fs}
			}
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// The flag package's error forms, rewritten by flagError.
var (
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)
	flagNoValue  = regexp.MustCompile(`^flag needs an argument: -+(\S+)$`)
	flagBadValue = regexp.MustCompile(`^invalid (?:boolean )?value "((?s).*)" for (?:flag )?-+([^:\s]+): `)
)

// flagError turns the flag package's errors ("invalid value "x" for flag
// -port: parse error", "slog: level string …") into the usual sentence:
// which flag, what it takes and what was given.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := flagUnknown.FindStringSubmatch(msg); m != nil {
		return usagef("%s has no flag --%s; %s -h lists its flags", fs.Name(), m[1], fs.Name())
	}
	if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		return usagef("--%s needs a value", m[1])
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			return usagef("--%s must be %s; got %q", f.Name, wants(f), m[1])
		}
	}
	return usageError{msg}
}

// wants says in words what a flag accepts.
func wants(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value: " + f.Usage
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "a whole number"
	case bool:
		return "true or false"
	case time.Duration:
		return "a duration such as 30s"
	case slog.Level, *slog.Level:
		return "debug, info, warn or error"
	default:
		return "a valid value: " + f.Usage
	}
}
