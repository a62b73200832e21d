// Command perform-mcp serves Perform's coach tools over MCP on stdio, for AI
// clients that launch a local process (Claude Desktop, Claude Code, …). It
// calls a Perform server's automation lane over the network with the
// studio API key in PERFORM_API_KEY.
//
//	PERFORM_API_KEY  required: the studio API key (pf_live_…)
//	PERFORM_API_URL  optional: the Perform server's root URL, default http://127.0.0.1:8080
//	                 (a URL ending in /v1/automation or /mcp is taken as its root)
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
	os.Exit(run(ctx, os.Getenv, &mcp.StdioTransport{}, os.Stderr))
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
	server := toolset.NewServer(toolset.Options{Client: client, APIKey: key, Logger: logger})
	if err := server.Run(ctx, transport); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fail("%v", err)
	}
	return 0
}
