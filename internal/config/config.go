// Package config reads Perform's server configuration from the environment.
// Every variable has a documented default; a bad value stops start-up with
// one sentence naming the variable and what it accepts.
package config

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/webui"
)

// DefaultAgentModel is the model the WhatsApp agent asks when AGENT_MODEL is unset.
const DefaultAgentModel = "claude-sonnet-4-5"

// DefaultSQLiteFile is the database used when PERFORM_DATABASE_URL is unset.
const DefaultSQLiteFile = "perform.db"

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
		DatabaseURL:          DefaultSQLiteFile,
		GCPercent:            400,
		RateLimitMax:         300,
		RateLimitWindow:      60 * time.Second,
		TraineeReadsPerHour:  60,
		TraineeWritesPerHour: 50,
		LogLevel:             slog.LevelInfo,
		AgentModel:           DefaultAgentModel,
		AgentDebounce:        8 * time.Second,
		AgentProposalTTL:     30 * time.Minute,
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

// reader parses variables and keeps the first error, so FromEnv reads
// top to bottom without an error check per line.
type reader struct {
	getenv func(string) string
	err    error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) str(name string) string { return strings.TrimSpace(r.getenv(name)) }

// token is one word of printable ASCII (a verification token, answered
// as it is), at most 1,024 characters; empty when unset.
func (r *reader) token(name string) string {
	v := r.str(name)
	switch {
	case len(v) > 1024:
		r.fail("%s must be the token as given, at most 1,024 characters; got %d.", name, len(v))
	case strings.IndexFunc(v, func(c rune) bool { return c <= ' ' || c > '~' }) >= 0:
		r.fail("%s must be the token as given, one word of printable ASCII (no spaces); got %q.", name, v)
	default:
		return v
	}
	return ""
}

// maxSetting bounds the open-ended numeric settings (about 24 days in ms),
// so a duration cannot overflow.
const maxSetting = 1 << 31

func (r *reader) int(name string, def, lo, hi int) int {
	v := r.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		switch {
		case hi < maxSetting:
			r.fail("%s must be a whole number from %d to %d; got %q.", name, lo, hi, v)
		case lo == 1:
			r.fail("%s must be a whole number above 0; got %q.", name, v)
		default:
			r.fail("%s must be a whole number of at least %d; got %q.", name, lo, v)
		}
		return def
	}
	return n
}

// price is US dollars per million tokens: a decimal number above 0, or
// unset (0).
func (r *reader) price(name string) float64 {
	v := r.str(name)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f < 1e6) {
		r.fail("%s must be US dollars per million tokens, a number above 0 such as 3 or 0.8; got %q.", name, v)
		return 0
	}
	return f
}

func (r *reader) gcPercent(name string, def int) int {
	v := r.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || (n < 1 && n != -1) {
		r.fail("%s must be a whole number above 0 (the heap growth in percent), or -1 to switch the collector off; got %q.", name, v)
		return def
	}
	return n
}

func (r *reader) url(name string, schemes ...string) string {
	v := r.str(name)
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Scheme != "unix") {
		r.fail("%s must be an absolute URL such as %s://host; got %q.", name, schemes[0], v)
		return ""
	}
	for _, s := range schemes {
		if strings.EqualFold(u.Scheme, s) {
			return v
		}
	}
	r.fail("%s must be a %s URL; got %q.", name, strings.Join(schemes, " or "), v)
	return ""
}

// PublicOrigin checks a PERFORM_PUBLIC_URL (or --public-url) value: the
// root URL clients reach the server at, and the OAuth issuer, so an http
// or https origin — a scheme, a host and perhaps a port, nothing else (a
// trailing "/" is dropped). Anything more (a path, a query, a fragment, a
// user) would make an issuer no client can match. The error names the
// variable, the flag and what is wrong (a sentence but for its period).
func PublicOrigin(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	bad := func(what string) (string, error) {
		return "", fmt.Errorf("PERFORM_PUBLIC_URL (--public-url) must be an http or https origin such as https://perform.example.com, with %s; got %q", what, v)
	}
	u, err := url.Parse(v)
	if err != nil || u.Opaque != "" {
		return bad("a scheme and a host")
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return bad("the scheme http or https")
	}
	switch {
	case u.Host == "" || u.Hostname() == "" || strings.ContainsAny(u.Host, "% "):
		return bad("a host")
	case strings.HasSuffix(u.Host, ":"):
		return bad("a port number after the colon, or no colon")
	case u.User != nil:
		return bad("no user or password")
	case u.Path != "" && u.Path != "/" || u.RawPath != "":
		return bad("no path (Perform is served at the root of its host)")
	case u.RawQuery != "" || u.ForceQuery:
		return bad("no query")
	case u.Fragment != "" || strings.Contains(v, "#"):
		return bad("no fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad("a port from 1 to 65535")
		}
	}
	return strings.TrimSuffix(v, "/"), nil
}

// secret accepts 32 bytes as hex or base64 (secret.ParseKey's forms).
func (r *reader) secret(name string) []byte {
	v := r.str(name)
	if v == "" {
		return nil
	}
	k, err := secret.ParseKey(v)
	if err != nil {
		// The value is a secret: name its length, never echo it.
		r.fail("%s must be 32 random bytes written as 64 hex characters or as base64 (try: openssl rand -base64 32); got %d characters that are neither.", name, len(v))
		return nil
	}
	return k
}

// doc reads the plain-text file the variable names (a studio's privacy
// or terms text); unset is "".
func (r *reader) doc(name string) string {
	path := r.str(name)
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		r.fail("%s names a file that cannot be read: %v.", name, err)
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, webui.MaxDocBytes+1))
	if err != nil {
		r.fail("%s names a file that cannot be read: %v.", name, err)
		return ""
	}
	if _, err := webui.ParseDoc(string(b)); err != nil {
		r.fail("%s must name a plain-text file (paragraphs apart by a blank line, \"# \" headings, \"- \" list items); %s: %v.", name, path, err)
		return ""
	}
	return string(b)
}

func (r *reader) oneOf(name string, allowed ...string) string {
	v := strings.ToLower(r.str(name))
	if v == "" {
		return ""
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail("%s must be %s; got %q.", name, strings.Join(allowed, " or "), v)
	return ""
}

func (r *reader) level(name string, def slog.Level) slog.Level {
	v := r.str(name)
	if v == "" {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		r.fail("%s must be debug, info, warn or error; got %q.", name, v)
		return def
	}
	return l
}

func (r *reader) proxies(name string) httpx.TrustedProxies {
	t, err := httpx.ParseTrustedProxies(r.str(name))
	if err != nil {
		r.fail("%s must be a comma-separated list of the load balancers' IP addresses or CIDR prefixes; %v.", name, err)
	}
	return t
}

func (r *reader) phones(name string) []string {
	var out []string
	for _, p := range strings.Split(r.str(name), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		e164, err := phone.Normalize(p, phone.DefaultRegion)
		if err != nil {
			r.fail("%s must be a comma-separated list of phone numbers; %q is not a phone number.", name, p)
			return nil
		}
		out = append(out, e164)
	}
	return out
}

// hosts reads a comma-separated list of host names, each optionally with
// a port: no scheme, path, user or wildcard.
func (r *reader) hosts(name string) []string {
	var out []string
	for _, h := range strings.Split(r.str(name), ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h == "" {
			continue
		}
		if !ValidHost(h) {
			r.fail("%s must be a comma-separated list of host names such as api.perfox.example or api.perfox.example:8443, without https:// or a path; %q is not one.", name, h)
			return nil
		}
		out = append(out, h)
	}
	return out
}

// ValidHost reports whether h is a host name (letters, digits, hyphens and
// dots, labels of 1 to 63 characters; an IPv4 address is one), optionally
// with a port from 1 to 65535.
func ValidHost(h string) bool {
	host := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[:i], ":") {
		port, err := strconv.Atoi(h[i+1:])
		if err != nil || port < 1 || port > 65535 || h[i+1] == '+' {
			return false
		}
		host = h[:i]
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func (r *reader) phoneCoaches(name string) map[string]string {
	v := r.str(name)
	if v == "" {
		return nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		p, coach, ok := strings.Cut(pair, "=")
		p, coach = strings.TrimSpace(p), strings.TrimSpace(coach)
		if !ok || !ids.Is(coach, ids.Coach) {
			r.fail("%s must be a comma-separated list of phone=coachId pairs with coach ids such as coa_…; %q is not one.", name, pair)
			return nil
		}
		e164, err := phone.Normalize(p, phone.DefaultRegion)
		if err != nil {
			r.fail("%s must be a comma-separated list of phone=coachId pairs; %q is not a phone number.", name, p)
			return nil
		}
		out[e164] = coach
	}
	return out
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
