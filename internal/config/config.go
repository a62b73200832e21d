// Package config reads Perform's server configuration from the environment.
// Every variable has a documented default; a bad value stops start-up with
// one sentence naming the variable and what it accepts.
package config

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/webui"
)

// The assistant's defaults from the specification, written here once: the
// agent falls back to them when its options leave them zero.
const (
	// DefaultAgentModel is the model the assistant asks when AGENT_MODEL is unset.
	DefaultAgentModel = "claude-sonnet-4-5"
	// DefaultAgentDebounce is how long the assistant waits for more
	// messages before it answers (AGENT_DEBOUNCE_MS).
	DefaultAgentDebounce = 8 * time.Second
	// DefaultAgentProposalTTL is how long a proposed write waits for the
	// coach's yes (AGENT_PROPOSAL_TTL_MINUTES).
	DefaultAgentProposalTTL = 30 * time.Minute
)

// Config is everything the server reads from its environment.
type Config struct {
	Port int // PORT, default 8080; 0 picks a free port
	// DatabaseURL is a postgres:// URL or a SQLite file path (default perform.db).
	DatabaseURL string
	RedisURL    string // empty: rate limits are kept in memory
	// PublicURL is the root URL clients reach the server at. Empty means
	// http://127.0.0.1:<port>, with the port actually bound (see BaseURL).
	PublicURL string
	SecretKey []byte // 32 bytes, nil when PERFORM_SECRET_KEY is unset

	// GCPercent is the garbage collector target (debug.SetGCPercent). The
	// MCP SDK's handler allocates ~300 KB per stateless request (~90 KB
	// for a tools/call on the endpoint's fast path), so the server is
	// GC-bound under load; 400 trades some memory for far fewer collections.
	GCPercent int
	// MCPSDKPathOnly (PERFORM_MCP_FAST_PATH=off) turns the hosted MCP
	// endpoint's fast path for tools/call off: every message goes through
	// the MCP SDK's Streamable HTTP handler.
	MCPSDKPathOnly bool

	// ShutdownDelay (PERFORM_SHUTDOWN_DELAY_MS) is how long, after SIGTERM,
	// the server keeps serving with /readyz answering 503, so a load
	// balancer takes it out before it stops accepting connections.
	ShutdownDelay time.Duration

	// TrustedProxies (PERFORM_TRUSTED_PROXIES) are the load balancers
	// whose X-Forwarded-For names the client; without them every client
	// behind a balancer shares the balancer's address-keyed limits.
	TrustedProxies httpx.TrustedProxies

	// DatabaseMaxConns (PERFORM_DATABASE_MAX_CONNS) caps the PostgreSQL
	// pool of this process; 0 is the default, max(8, 2×GOMAXPROCS).
	DatabaseMaxConns int

	RateLimitMax    int
	RateLimitWindow time.Duration
	// TraineeReadsPerHour and TraineeWritesPerHour hold each trainee's own
	// connection (beside the credential's limit above); studio keys are
	// not held to them.
	TraineeReadsPerHour  int
	TraineeWritesPerHour int
	// ModelTokensPerPersonDay and ModelTokensPerStudioHour
	// (PERFORM_MODEL_TOKENS_PER_PERSON_DAY, _PER_STUDIO_HOUR; 0: the
	// defaults of internal/modelbudget) are the ceilings of the one model
	// budget: the assistant's turns and the weekly plans alike.
	ModelTokensPerPersonDay, ModelTokensPerStudioHour int

	LogFormat string // "json", "text" or "" (text on a terminal, json otherwise)
	LogLevel  slog.Level

	SmartSendWebhookSecret string
	SmartSendAPIURL        string
	AgentSmartSendAPIKey   string
	AgentPilotPhones       []string          // E.164; empty opens the agent to every coach
	AgentPhoneCoaches      map[string]string // E.164 phone -> coach id
	AgentModel             string
	AgentDebounce          time.Duration
	// AgentPriceInput and AgentPriceOutput (AGENT_PRICE_INPUT,
	// AGENT_PRICE_OUTPUT) are US dollars per million tokens for the cost
	// estimate of perform agent cost; 0 means AGENT_MODEL's list price.
	AgentPriceInput  float64
	AgentPriceOutput float64
	AgentProposalTTL time.Duration // how long a proposed write waits for the coach's yes

	AnthropicAPIKey      string
	AnthropicBaseURL     string
	AnthropicWorkspaceID string

	// AgentPlatformCallbackHosts (PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS)
	// are the hosts, lower-case, as host or host:port, an agent platform's
	// auth-context callback may go to; empty refuses every callback.
	AgentPlatformCallbackHosts []string
	// AgentPlatformCallbackLoopback (PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK=1)
	// lets the callback go to 127.0.0.1 or localhost, over http, on any
	// port: for a platform developer trying the callback on a laptop.
	// CheckCallbackLoopback refuses it with an https PublicURL.
	AgentPlatformCallbackLoopback bool

	// OAuthClientMetadataDocuments (PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS,
	// on by default; off or 0 turns it off): the authorization server
	// fetches and uses client ID metadata documents (a client_id that is a
	// URL, as Claude Code sends), which needs outbound HTTPS to the apps'
	// metadata hosts. Off, the server stops offering them, so apps
	// register (POST /register) instead.
	OAuthClientMetadataDocuments bool

	// DefaultLanguage (PERFORM_DEFAULT_LANGUAGE, he or en; he when unset,
	// the language of Perform's home region, Israel) is the language of
	// the browser pages for a browser that asks for neither.
	DefaultLanguage webui.Lang
	// PrivacyText and TermsText (read from PERFORM_PRIVACY_FILE and
	// PERFORM_TERMS_FILE) replace Perform's own text of /privacy and
	// /terms; empty shows Perform's own. Plain text (webui.ParseDoc).
	PrivacyText string
	TermsText   string
	// OpenAIAppsChallenge (PERFORM_OPENAI_APPS_CHALLENGE) is the token the
	// ChatGPT apps directory asks the server to answer at
	// /.well-known/openai-apps-challenge, proving the domain is the
	// submitter's; empty: that path is 404.
	OpenAIAppsChallenge string
}

// CheckCallbackLoopback refuses PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK
// on a server reached over https: a deployment, where callbacks to
// loopback would reach the server's own machine.
func (c Config) CheckCallbackLoopback() error {
	if c.AgentPlatformCallbackLoopback && strings.HasPrefix(strings.ToLower(c.PublicURL), "https:") {
		return fmt.Errorf("PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK is for trying agent platform callbacks on a laptop and is refused with an https PERFORM_PUBLIC_URL (%s): unset it", c.PublicURL)
	}
	return nil
}

// Defaults returns the configuration with nothing set.
func Defaults() Config {
	return Config{
		Port:                 8080,
		DatabaseURL:          store.DefaultSQLitePath,
		GCPercent:            400,
		RateLimitMax:         300,
		RateLimitWindow:      60 * time.Second,
		TraineeReadsPerHour:  60,
		TraineeWritesPerHour: 50,
		LogLevel:             slog.LevelInfo,
		AgentModel:           DefaultAgentModel,
		AgentDebounce:        DefaultAgentDebounce,
		AgentProposalTTL:     DefaultAgentProposalTTL,
		DefaultLanguage:      webui.Hebrew,

		OAuthClientMetadataDocuments: true,
	}
}

// FromEnv reads the configuration through getenv (os.Getenv in production).
// The error for a bad value is one sentence naming the variable.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Defaults()
	r := reader{getenv: getenv}

	c.Port = r.int("PORT", c.Port, 0, 65535)
	if v := r.str("PERFORM_DATABASE_URL"); v != "" {
		c.DatabaseURL = v
	}
	c.RedisURL = r.url("PERFORM_REDIS_URL", "redis", "rediss", "unix")
	if v := r.str("PERFORM_PUBLIC_URL"); v != "" && r.err == nil {
		var err error
		if c.PublicURL, err = PublicOrigin(v); err != nil {
			r.fail("%v.", err)
		}
	}
	c.SecretKey = r.secret("PERFORM_SECRET_KEY")
	c.GCPercent = r.gcPercent("PERFORM_GC_PERCENT", c.GCPercent)
	c.MCPSDKPathOnly = r.oneOf("PERFORM_MCP_FAST_PATH", "on", "off") == "off"
	c.ShutdownDelay = time.Duration(r.int("PERFORM_SHUTDOWN_DELAY_MS", 0, 0, 60000)) * time.Millisecond
	c.TrustedProxies = r.proxies("PERFORM_TRUSTED_PROXIES")
	c.DatabaseMaxConns = r.int("PERFORM_DATABASE_MAX_CONNS", 0, 0, 1000)
	c.RateLimitMax = r.int("RATE_LIMIT_MAX", c.RateLimitMax, 1, maxSetting)
	c.RateLimitWindow = time.Duration(r.int("RATE_LIMIT_WINDOW_MS", int(c.RateLimitWindow.Milliseconds()), 1, maxSetting)) * time.Millisecond
	c.TraineeReadsPerHour = r.int("PERFORM_TRAINEE_READS_PER_HOUR", c.TraineeReadsPerHour, 1, maxSetting)
	c.TraineeWritesPerHour = r.int("PERFORM_TRAINEE_WRITES_PER_HOUR", c.TraineeWritesPerHour, 1, maxSetting)
	c.ModelTokensPerPersonDay = r.int("PERFORM_MODEL_TOKENS_PER_PERSON_DAY", 0, 1000, 1_000_000_000)
	c.ModelTokensPerStudioHour = r.int("PERFORM_MODEL_TOKENS_PER_STUDIO_HOUR", 0, 1000, 1_000_000_000)
	c.LogFormat = r.oneOf("LOG_FORMAT", "json", "text")
	c.LogLevel = r.level("LOG_LEVEL", c.LogLevel)

	c.SmartSendWebhookSecret = r.str("SMARTSEND_WEBHOOK_SECRET")
	c.SmartSendAPIURL = r.url("SMARTSEND_API_URL", "http", "https")
	c.AgentSmartSendAPIKey = r.str("AGENT_SMARTSEND_API_KEY")
	c.AgentPilotPhones = r.phones("AGENT_PILOT_PHONES")
	c.AgentPhoneCoaches = r.phoneCoaches("AGENT_PHONE_COACHES")
	if v := r.str("AGENT_MODEL"); v != "" {
		c.AgentModel = v
	}
	c.AgentDebounce = time.Duration(r.int("AGENT_DEBOUNCE_MS", int(c.AgentDebounce.Milliseconds()), 0, maxSetting)) * time.Millisecond
	c.AgentPriceInput = r.price("AGENT_PRICE_INPUT")
	c.AgentPriceOutput = r.price("AGENT_PRICE_OUTPUT")
	c.AgentProposalTTL = time.Duration(r.int("AGENT_PROPOSAL_TTL_MINUTES", int(c.AgentProposalTTL/time.Minute), 1, 24*60)) * time.Minute

	c.AnthropicAPIKey = r.str("ANTHROPIC_API_KEY")
	c.AnthropicBaseURL = r.url("ANTHROPIC_BASE_URL", "http", "https")
	c.AnthropicWorkspaceID = r.str("ANTHROPIC_WORKSPACE_ID")
	c.AgentPlatformCallbackHosts = r.hosts("PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS")
	c.AgentPlatformCallbackLoopback = r.oneOf("PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK", "0", "1") == "1"
	if v := r.oneOf("PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS", "on", "off", "1", "0"); v != "" {
		c.OAuthClientMetadataDocuments = v == "on" || v == "1"
	}
	if v := r.oneOf("PERFORM_DEFAULT_LANGUAGE", "he", "en"); v != "" {
		c.DefaultLanguage = webui.Lang(v)
	}
	c.PrivacyText = r.doc("PERFORM_PRIVACY_FILE")
	c.TermsText = r.doc("PERFORM_TERMS_FILE")

	c.OpenAIAppsChallenge = r.token("PERFORM_OPENAI_APPS_CHALLENGE")

	if r.err != nil {
		return Config{}, r.err
	}
	return c, nil
}

// BaseURL is PublicURL, or http://127.0.0.1:<port> when it is unset.
// boundPort is the port the server actually listens on (PORT may be 0).
func (c Config) BaseURL(boundPort int) string {
	if c.PublicURL != "" {
		return c.PublicURL
	}
	return "http://127.0.0.1:" + strconv.Itoa(boundPort)
}

// NewLogger builds the slog logger the configuration asks for, writing to w.
// With LOG_FORMAT unset it writes text when w is a terminal and JSON otherwise.
func (c Config) NewLogger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	format := c.LogFormat
	if format == "" {
		format = "json"
		if isTerminal(w) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// BindFlags registers command-line flags that override the environment.
// Call it after FromEnv and before fs.Parse: each flag's default is the
// value the environment gave.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.Port, "port", c.Port, "port to listen on (PORT; 0 picks a free one)")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "postgres:// URL or SQLite file path (PERFORM_DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", c.RedisURL, "Redis URL for shared rate limits (PERFORM_REDIS_URL)")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "root URL clients reach the server at (PERFORM_PUBLIC_URL)")
	fs.TextVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error (LOG_LEVEL)")
}
