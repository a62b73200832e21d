// Command perform runs the Perform server and administers it.
//
//	perform serve                         serve the lane, MCP, agent webhook, health and metrics
//	perform demo                          seed the demo studio, mint a key, then serve
//	perform migrate                       apply database migrations
//	perform studio create --name --slug   create a studio
//	perform key create|list|revoke        manage a studio's API keys
//	perform audit --studio SLUG           read a studio's audit trail
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
	"os"
	"os/signal"
	"strings"
	"syscall"
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
		{"serve", "[--port N] [--host ADDR] [--database-url URL] [--redis-url URL]", "Serve the automation lane, MCP endpoint, agent webhook, health and metrics.", cmdServe},
		{"demo", "[serve flags]", "Seed the demo studio (once), mint a fresh API key named demo, print the URLs and serve.", cmdDemo},
		{"migrate", "[--database-url URL]", "Apply pending database migrations.", cmdMigrate},
		{"studio create", "--name NAME --slug SLUG [--region IL] [--tier free|pro|business]", "Create a studio.", cmdStudioCreate},
		{"key create", "--studio SLUG --name NAME", "Mint an API key; it is printed once, alone on stdout.", cmdKeyCreate},
		{"key list", "--studio SLUG", "List a studio's keys, one a line: prefix, id, name, created, last used, revoked.", cmdKeyList},
		{"key revoke", "PREFIX_OR_ID", "Revoke a key; the next request with it is refused.", cmdKeyRevoke},
		{"audit", "--studio SLUG [--limit N]", "Print a studio's audit trail, newest first.", cmdAudit},
		{"help", "", "Show this help.", nil},
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
	cmd, rest, ok := find(args)
	if !ok {
		fmt.Fprintf(stderr, "perform has no command %q; run perform help to see the commands.\n", strings.Join(args[:min(2, len(args))], " "))
		return 2
	}
	err := cmd.run(ctx, e, rest)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "Usage: perform %s %s\n%s\n", cmd.name, cmd.args, cmd.summary)
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

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "perform runs and administers the Perform server.")
	fmt.Fprintln(w, "\nUsage: perform COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
		if c.args != "" {
			fmt.Fprintf(w, "  %-14s   %s\n", "", c.args)
		}
	}
	fmt.Fprintln(w, "\nConfiguration is read from the environment (PORT, PERFORM_DATABASE_URL, PERFORM_REDIS_URL, …; see README.md); flags override it.")
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

// parse parses args; positional arguments may come before or after flags.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
