package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/agent"
	"github.com/otherwise/perform/internal/areas/appointments"
	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/demo"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/llm/anthropic"
	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
)

// inProcessRoot is the root URL tools use for the lane inside the server;
// the in-process transport never dials it.
const inProcessRoot = "http://perform.internal"

// serveConfig reads the environment and the serve flags.
func serveConfig(e env, name string, args []string) (config.Config, string, error) {
	cfg, err := config.FromEnv(e.getenv)
	if err != nil {
		return cfg, "", err
	}
	fs := newFlags(name)
	cfg.BindFlags(fs)
	// The demo prints a live key, so it listens on loopback unless told
	// otherwise; serve keeps its documented default of every interface.
	defaultHost, hostHelp := "", "interface to listen on (default: all)"
	if name == "demo" {
		defaultHost, hostHelp = "127.0.0.1", `interface to listen on; --host "" for all`
	}
	host := fs.String("host", defaultHost, hostHelp)
	rest, err := parse(fs, args)
	if err != nil {
		return cfg, "", err
	}
	if len(rest) > 0 {
		return cfg, "", usagef("perform %s takes no arguments; got %q", name, rest[0])
	}
	if cfg.Port < 0 || cfg.Port > 65535 {
		return cfg, "", usagef("--port must be a whole number from 0 to 65535; got %d", cfg.Port)
	}
	// The flag bypasses FromEnv's check of PERFORM_PUBLIC_URL: check it again.
	if cfg.PublicURL, err = config.PublicOrigin(cfg.PublicURL); err != nil {
		return cfg, "", usagef("%v", err)
	}
	return cfg, *host, nil
}

func cmdServe(ctx context.Context, e env, args []string) error {
	return serve(ctx, e, "serve", args, nil)
}

// serve builds the server from the environment and flags, listens, runs
// prepare (when not nil) and serves until ctx ends.
func serve(ctx context.Context, e env, name string, args []string, prepare func(*server.Server, config.Config, net.Listener) error) error {
	cfg, host, err := serveConfig(e, name, args)
	if err != nil {
		return err
	}
	logger := cfg.NewLogger(e.stderr)
	s, err := server.New(ctx, cfg, logger, plugins(cfg)...)
	if err != nil {
		return err
	}
	ln, err := listen(host, cfg.Port)
	if err != nil {
		s.Close()
		return err
	}
	if prepare != nil {
		if err := prepare(s, cfg, ln); err != nil {
			ln.Close()
			s.Close()
			return err
		}
	}
	return s.Serve(ctx, ln)
}

// cmdDemo seeds the demo studio, mints a fresh key and serves exactly as
// serve does.
func cmdDemo(ctx context.Context, e env, args []string) error {
	return serve(ctx, e, "demo", args, func(s *server.Server, cfg config.Config, ln net.Listener) error {
		studio, err := demo.Seed(ctx, s.Store())
		if err != nil {
			return err
		}
		key, err := mintDemoKey(ctx, s.Store(), studio)
		if err != nil {
			return err
		}
		base := cfg.BaseURL(ln.Addr().(*net.TCPAddr).Port)
		where := cfg.DatabaseURL
		if store.EngineOf(cfg.DatabaseURL) == store.EnginePostgres {
			where = "PostgreSQL" // the URL may carry a password
		}
		fmt.Fprintf(e.stdout, `Perform demo: studio %q (slug %s) on %s.
  Lane:     %s/v1/automation
  API key:  %s
  Health:   %s/healthz
  MCP:      %s/mcp
Try:
  curl -H 'Authorization: Bearer %s' '%s/v1/automation/trainees/search?q=levi'
`, studio.Name, studio.Slug, where, base, key, base, base, key, base)
		if loginGateway(cfg) == nil {
			fmt.Fprintf(e.stdout, "Sign in on a browser at %s/login (coach Dana Levi: 050-123-4567); with no WhatsApp gateway configured, the one-time code is written to the server log (at info).\n", base)
		}
		return nil
	})
}

// mintDemoKey revokes the keys earlier demo runs minted (so repeated runs
// never reach the tier's key limit) and mints a fresh one named "demo".
func mintDemoKey(ctx context.Context, st store.Store, studio domain.Studio) (string, error) {
	keys, err := st.ListAPIKeys(ctx, studio.ID)
	if err != nil {
		return "", err
	}
	for _, k := range keys {
		if k.Name == "demo" && k.RevokedAt == nil {
			if err := st.RevokeAPIKey(ctx, k.ID, time.Now()); err != nil {
				return "", err
			}
		}
	}
	key, _, err := mintKey(ctx, st, studio, "demo", "", nil) // the default scopes
	return key, err
}

func listen(host string, port int) (net.Listener, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (PORT or --port): %w", addr, err)
	}
	return ln, nil
}

// plugins are the optional parts of the server: the browser sign-in and
// the OAuth authorization server, the hosted MCP endpoint and the
// WhatsApp agent (the last two call the lane in process).
func plugins(cfg config.Config) []server.Option { return pluginsWith(cfg, oauth.Options{}) }

// pluginsWith is plugins with the authorization server's options (tests
// set its clock and let it fetch metadata documents from loopback).
func pluginsWith(cfg config.Config, o oauth.Options) []server.Option {
	if o.Issuer == "" {
		o.Issuer = cfg.PublicURL
	}
	o.NoMetadataDocuments = o.NoMetadataDocuments || !cfg.OAuthClientMetadataDocuments
	var as *oauth.Server
	return []server.Option{
		// An agent platform's verification codes go out as the sign-in's do
		// (a nil gateway stays nil: the codes are logged).
		server.WithCodes(loginGateway(cfg)),
		// An Authn runs before every plug-in: /mcp, the agent and the lane
		// accept OAuth access tokens beside studio keys.
		server.WithAuthn(func(p *server.Parts, inner auth.Authenticator) (auth.Authenticator, error) {
			o.Browser = oauth.FromLogin(mountLogin(cfg, p))
			var authn auth.Authenticator
			as, authn = oauth.Mount(oauthHost(p), inner, o)
			return authn, nil
		}),
		planModel(cfg),
		server.WithPlugin(func(p *server.Parts) error { return mountMCP(p, as) }),
		server.WithPlugin(func(p *server.Parts) error { return mountAgent(cfg, p) }),
		// A coach's calendar feed: a calendar app sends no credential, so it
		// is served beside the lane, behind the feed's own secret address.
		server.WithPlugin(func(p *server.Parts) error {
			p.Handle(appointments.FeedPattern, appointments.Feed(p.Store, p.Logger, nil), true)
			return nil
		}),
		server.WithPlugin(func(p *server.Parts) error { return mountPaymentsWebhook(cfg, p) }),
	}
}

// mountPaymentsWebhook serves the payment processors' webhook (POST
// /v1/hooks/payments/{token}) behind the server's limiter: a studio that
// turned it on gets its processor's signed events recorded. Without
// PERFORM_SECRET_KEY no studio can turn it on, and it answers 404.
func mountPaymentsWebhook(cfg config.Config, p *server.Parts) error {
	h, err := payhook.NewHook(payhook.HookOptions{Store: p.Store, SecretKey: cfg.SecretKey, Logger: p.Logger})
	if err != nil {
		return fmt.Errorf("PERFORM_SECRET_KEY cannot seal the payments webhook's secrets: %w", err)
	}
	p.Handle(payhook.Route, h, true)
	return nil
}

// planModel lays drafted weeks out with the assistant's model and key;
// without ANTHROPIC_API_KEY a draft is the rules' own week.
func planModel(cfg config.Config) server.Option {
	if cfg.AnthropicAPIKey == "" {
		return server.WithPlanModel(nil, llm.Prices{})
	}
	name := cfg.AgentModel
	if name == "" {
		name = config.DefaultAgentModel
	}
	p, err := anthropic.New(anthropic.Config{APIKey: cfg.AnthropicAPIKey, BaseURL: cfg.AnthropicBaseURL, WorkspaceID: cfg.AnthropicWorkspaceID, Model: name}, nil)
	if err != nil { // no tool set to turn into the API's: cannot fail
		return server.WithPlanModel(nil, llm.Prices{})
	}
	return server.WithPlanModel(p, agentPrices(cfg, name))
}

// oauthHost is the server being composed, as oauth.Mount builds on it.
func oauthHost(p *server.Parts) oauth.Host {
	return oauth.Host{Store: p.Store, Logger: p.Logger, Redis: p.Redis, Limits: p.Limits, Handle: p.Handle}
}

// mountLogin serves the browser sign-in (/login, /logout). Codes go over
// WhatsApp from the Perform AI number (AGENT_SMARTSEND_API_KEY at
// SMARTSEND_API_URL); with either unset they are written to the log.
func mountLogin(cfg config.Config, p *server.Parts) *login.Service {
	svc := login.New(login.Options{Store: p.Store, Gateway: loginGateway(cfg), Logger: p.Logger, PublicURL: cfg.PublicURL, Courier: p.Courier})
	mux := http.NewServeMux()
	svc.Register(mux)
	for _, pattern := range []string{"/login", "/login/", "/logout"} {
		p.Handle(pattern, mux, false)
	}
	return svc
}

// loginGateway is the SmartSend client that sends sign-in codes, or nil
// when SmartSend is not configured.
func loginGateway(cfg config.Config) login.Gateway {
	if cfg.AgentSmartSendAPIKey == "" || cfg.SmartSendAPIURL == "" {
		return nil
	}
	return agent.NewSmartSend(cfg.SmartSendAPIURL, cfg.AgentSmartSendAPIKey, nil)
}

// mountMCP serves the coach tools at /mcp, behind a gate that authenticates
// each message with the lane's Authenticator and counts it with the lane's
// limiter, once (the lane call it leads to is not counted again).
// The SDK logs three lines per stateless request (connecting, connected,
// disconnected) at info; they are demoted below debug, so a request is one
// debug line (the server's own) and the SDK's warnings and errors still show.
func mountMCP(p *server.Parts, as *oauth.Server) error {
	client := laneclient.New(inProcessRoot, laneclient.HandlerTransport(p.Lane), domain.SourceMCP)
	gate := mcpserver.Gate{Authenticator: p.Authenticator(), Limiter: p.Limiter, Logger: p.Logger,
		ResourceMetadata: as.ResourceMetadataURL, Scope: strings.Join(oauth.Scopes, " ")}
	logger := config.Demote(p.Logger, slog.LevelDebug-4)
	p.Handle("/mcp", gate.Wrap(mcpserver.New(mcpserver.Options{Client: client, Logger: logger, OnToolCall: metrics.ToolCall, SiteURL: p.Config.PublicURL, SDKPathOnly: p.Config.MCPSDKPathOnly})), false)
	return nil
}

// mountAgent serves the WhatsApp agent's webhook and, when the agent is on
// (AGENT_SMARTSEND_API_KEY is set), works its reply and recovery jobs. An
// agent that is off schedules nothing: its webhook only says it is off.
func mountAgent(cfg config.Config, p *server.Parts) error {
	key, err := agentSecretKey(cfg, p.Logger)
	if err != nil {
		return err
	}
	a, err := agent.New(agent.Options{
		Store:         p.Store,
		Lane:          laneclient.New(inProcessRoot, laneclient.HandlerTransport(p.Lane), domain.SourceAgent),
		SmartSendKey:  cfg.AgentSmartSendAPIKey,
		SmartSendURL:  cfg.SmartSendAPIURL,
		WebhookSecret: cfg.SmartSendWebhookSecret,
		PilotPhones:   cfg.AgentPilotPhones,
		PhoneCoaches:  cfg.AgentPhoneCoaches,
		LLM: agent.LLM{
			APIKey:      cfg.AnthropicAPIKey,
			BaseURL:     cfg.AnthropicBaseURL,
			WorkspaceID: cfg.AnthropicWorkspaceID,
			Model:       cfg.AgentModel,
		},
		Debounce:    agentDebounce(cfg.AgentDebounce),
		ProposalTTL: cfg.AgentProposalTTL,
		Budget:      p.Budget(),
		SecretKey:   key,
		Logger:      p.Logger,
	})
	if err != nil {
		return err
	}
	a.ObserveTurns(metrics.AgentTurn)
	a.ObserveModelSteps(func(model string, u llm.Usage) {
		metrics.AgentModelStep(model, u.Input, u.Output, u.CacheWrite, u.CacheWrite1h, u.CacheRead)
	})
	if cfg.AgentSmartSendAPIKey != "" {
		a.Register(p.Workers)
		p.UseHoldingQueue() // the reply jobs wait there for their debounce
		p.OnJobs(a.SetJobs)
	}
	p.Handle("POST /v1/agent/webhook", a.Webhook(), true)
	p.OnClose(a.Close)
	return nil
}

// agentDebounce maps AGENT_DEBOUNCE_MS to the agent's option, where 0
// means its default and a negative value means at once: the configuration
// has already applied the default, so 0 here means "reply at once".
func agentDebounce(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// agentSecretKey is PERFORM_SECRET_KEY, or on SQLite a key kept in a file
// beside the database (created on first use). On Postgres an enabled agent
// needs the variable: instances must share the key that seals studio keys.
func agentSecretKey(cfg config.Config, logger *slog.Logger) ([]byte, error) {
	if cfg.SecretKey != nil {
		return cfg.SecretKey, nil
	}
	if store.EngineOf(cfg.DatabaseURL) == store.EngineSQLite {
		path := cfg.DatabaseURL + ".secret"
		if cfg.DatabaseURL == "" {
			path = filepath.Join(".", store.DefaultSQLitePath+".secret")
		}
		return secret.LoadOrCreateKeyFile(path)
	}
	if cfg.AgentSmartSendAPIKey != "" {
		return nil, errors.New("PERFORM_SECRET_KEY must be set when the WhatsApp agent is on (AGENT_SMARTSEND_API_KEY) with Postgres, so every instance reads the keys the agent seals; try: openssl rand -base64 32")
	}
	// The agent is off: it seals nothing, so a throwaway key will do.
	logger.Debug("PERFORM_SECRET_KEY is unset and the agent is off; using a throwaway key")
	return secret.NewKey(), nil
}
