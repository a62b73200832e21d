// Command perform-mcp serves Perform's coach tools over MCP on stdio, for AI
// clients that launch a local process (Claude Desktop, Claude Code, …). It
// calls a Perform server's automation lane over the network with the
// studio API key in PERFORM_API_KEY.
//
//	PERFORM_API_KEY  required: the studio API key (pf_live_…)
//	PERFORM_API_URL  optional: the Perform server's root URL, default http://127.0.0.1:8080
//	                 (a URL ending in /v1/automation or /mcp is taken as its root)
//
//	perform-mcp -h         this help
//	perform-mcp --version  which build this is
//
// It reads the environment directly: it runs on a coach's machine and must
// not need the server's configuration, database or drivers. stdout carries
// only the MCP protocol; every message for people goes to stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/buildinfo"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// DefaultAPIURL is the local perform server.
const DefaultAPIURL = "http://127.0.0.1:8080"

// validateTimeout bounds the start-up key check.
const validateTimeout = 10 * time.Second

const howToGetAKey = "create one with `perform key create --studio SLUG --name NAME` (or on your studio's integrations page)"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if code, done := flags(os.Args[1:], os.Stdout, os.Stderr); done {
		os.Exit(code)
	}
	os.Exit(run(ctx, os.Getenv, &mcp.StdioTransport{}, os.Stderr))
}

const usage = `perform-mcp serves Perform's coach tools over MCP on stdio, for AI clients
that launch a local process (Claude Desktop, Claude Code, …). It calls a Perform
server's automation lane with a studio API key.

Usage: perform-mcp [-h | --version]

Environment:
  PERFORM_API_KEY  required: the studio API key (pf_live_…); ` + howToGetAKey + `
  PERFORM_API_URL  the Perform server's root URL (default ` + DefaultAPIURL + `)

An MCP client's configuration, for example:
  {"mcpServers": {"perform": {"command": "perform-mcp",
    "env": {"PERFORM_API_KEY": "pf_live_…", "PERFORM_API_URL": "` + DefaultAPIURL + `"}}}}
`

// flags handles the command line: -h and --version answer and exit; any
// other argument is a usage mistake (exit 2). done is false when there is
// nothing to handle and the server should run.
func flags(args []string, stdout, stderr io.Writer) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0, true
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, buildinfo.String("perform-mcp"))
		return 0, true
	}
	fmt.Fprintf(stderr, "perform-mcp takes no arguments (configure it with PERFORM_API_KEY and PERFORM_API_URL); got %q. perform-mcp -h says more.\n", args[0])
	return 2, true
}

// run validates the configuration and the key, then serves transport until
// the client disconnects. It returns the process exit code.
func run(ctx context.Context, getenv func(string) string, transport mcp.Transport, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "perform-mcp: "+format+"\n", args...)
		return 1
	}
	key := strings.TrimSpace(getenv("PERFORM_API_KEY"))
	if key == "" {
		return fail("PERFORM_API_KEY is not set; it must hold your studio's API key: %s.", howToGetAKey)
	}
	root := strings.TrimSpace(getenv("PERFORM_API_URL"))
	if root == "" {
		root = DefaultAPIURL
	}
	// People paste the lane's or the hosted endpoint's URL as often as the root.
	root = strings.TrimRight(root, "/")
	for _, suffix := range []string{"/v1/automation", "/mcp"} {
		root = strings.TrimSuffix(root, suffix)
	}
	if u, err := url.Parse(root); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("PERFORM_API_URL %q is not a server URL; set it to the Perform server's root, such as %s.", root, DefaultAPIURL)
	}

	client := laneclient.New(root, nil, "mcp")
	vctx, cancel := context.WithTimeout(ctx, validateTimeout)
	studio, err := client.Validate(vctx, key)
	cancel()
	var laneErr *laneclient.Error
	switch {
	case errors.As(err, &laneErr):
		return fail("the Perform server at %s refused PERFORM_API_KEY (%s); %s and set PERFORM_API_KEY to it.", root, laneErr.Message, howToGetAKey)
	case err != nil:
		return fail("%v; is the Perform server running, and is PERFORM_API_URL (%s) its root URL?", err, root)
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	fmt.Fprintf(stderr, "perform-mcp: serving studio %s (%s) from %s\n", studio.Name, studio.Slug, root)
	server := toolset.NewServer(toolset.Options{Client: client, APIKey: key, Logger: logger, SiteURL: root})
	if err := server.Run(ctx, transport); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fail("%v", err)
	}
	return 0
}
