package config

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestDefaults(t *testing.T) {
	c, err := FromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.DatabaseURL != "perform.db" || store.EngineOf(c.DatabaseURL) != "sqlite" {
		t.Errorf("port %d db %q engine %q", c.Port, c.DatabaseURL, store.EngineOf(c.DatabaseURL))
	}
	if c.GCPercent != 400 || c.RateLimitMax != 300 || c.RateLimitWindow != time.Minute {
		t.Errorf("gc %d max %d window %v", c.GCPercent, c.RateLimitMax, c.RateLimitWindow)
	}
	if c.TraineeReadsPerHour != 60 || c.TraineeWritesPerHour != 50 {
		t.Errorf("trainee reads %d writes %d an hour", c.TraineeReadsPerHour, c.TraineeWritesPerHour)
	}
	if c.AgentModel != DefaultAgentModel || c.AgentDebounce != 8*time.Second {
		t.Errorf("model %q debounce %v", c.AgentModel, c.AgentDebounce)
	}
	if c.MCPSDKPathOnly {
		t.Error("the MCP fast path is off by default")
	}
	if c.ShutdownDelay != 0 {
		t.Errorf("ShutdownDelay %v; want none by default", c.ShutdownDelay)
	}
	if !c.OAuthClientMetadataDocuments {
		t.Errorf("client ID metadata documents are off by default")
	}
	if c.LogLevel != slog.LevelInfo || c.LogFormat != "" || c.SecretKey != nil || c.RedisURL != "" {
		t.Errorf("unexpected %+v", c)
	}
	if got := c.BaseURL(8080); got != "http://127.0.0.1:8080" {
		t.Errorf("BaseURL = %q", got)
	}
}

func TestEverythingSet(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	c, err := FromEnv(env(map[string]string{
		"PORT":                                    "9090",
		"PERFORM_DATABASE_URL":                    "postgres://u@db:5432/perform",
		"PERFORM_REDIS_URL":                       "redis://127.0.0.1:6379/2",
		"PERFORM_PUBLIC_URL":                      "https://perform.example/",
		"PERFORM_SECRET_KEY":                      base64.StdEncoding.EncodeToString(key),
		"PERFORM_GC_PERCENT":                      "-1",
		"PERFORM_MCP_FAST_PATH":                   "OFF",
		"PERFORM_SHUTDOWN_DELAY_MS":               "2500",
		"PERFORM_TRUSTED_PROXIES":                 "10.0.0.0/8, 127.0.0.1",
		"PERFORM_DATABASE_MAX_CONNS":              "12",
		"RATE_LIMIT_MAX":                          "5",
		"RATE_LIMIT_WINDOW_MS":                    "1500",
		"PERFORM_TRAINEE_READS_PER_HOUR":          "7",
		"PERFORM_TRAINEE_WRITES_PER_HOUR":         "3",
		"PERFORM_MODEL_TOKENS_PER_PERSON_DAY":     "50000",
		"PERFORM_MODEL_TOKENS_PER_STUDIO_HOUR":    "900000",
		"LOG_FORMAT":                              "JSON",
		"LOG_LEVEL":                               "debug",
		"SMARTSEND_WEBHOOK_SECRET":                "s3cret",
		"SMARTSEND_API_URL":                       "https://smartsend.example/api",
		"AGENT_SMARTSEND_API_KEY":                 "ak",
		"AGENT_PILOT_PHONES":                      "050-123-4567, +972 52 765 4321",
		"AGENT_PHONE_COACHES":                     "0501234567=coa_0123456789abcdefghjkmnpqrs",
		"AGENT_MODEL":                             "claude-haiku-4-5",
		"AGENT_DEBOUNCE_MS":                       "0",
		"ANTHROPIC_API_KEY":                       "sk",
		"ANTHROPIC_BASE_URL":                      "http://127.0.0.1:9999",
		"ANTHROPIC_WORKSPACE_ID":                  "ws",
		"AGENT_PRICE_INPUT":                       "0.8",
		"AGENT_PRICE_OUTPUT":                      "4",
		"AGENT_PROPOSAL_TTL_MINUTES":              "45",
		"PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS":   " API.Perfox.example , hooks.perfox.example:8443,",
		"PERFORM_OPENAI_APPS_CHALLENGE":           " oai-Zk3_9q.Tq-1 ",
		"PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS": "OFF",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ShutdownDelay != 2500*time.Millisecond {
		t.Errorf("ShutdownDelay %v", c.ShutdownDelay)
	}
	if !c.MCPSDKPathOnly {
		t.Error("PERFORM_MCP_FAST_PATH=OFF left the fast path on")
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.0/8" || c.TrustedProxies[1].String() != "127.0.0.1/32" {
		t.Errorf("TrustedProxies %v", c.TrustedProxies)
	}
	if c.OAuthClientMetadataDocuments {
		t.Errorf("PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS=OFF left metadata documents on")
	}
	if c.OpenAIAppsChallenge != "oai-Zk3_9q.Tq-1" {
		t.Errorf("OpenAIAppsChallenge %q", c.OpenAIAppsChallenge)
	}
	if c.DatabaseMaxConns != 12 {
		t.Errorf("DatabaseMaxConns %d", c.DatabaseMaxConns)
	}
	if got := c.AgentPlatformCallbackHosts; len(got) != 2 || got[0] != "api.perfox.example" || got[1] != "hooks.perfox.example:8443" {
		t.Errorf("AgentPlatformCallbackHosts %q", got)
	}
	if c.AgentProposalTTL != 45*time.Minute {
		t.Errorf("AgentProposalTTL %v", c.AgentProposalTTL)
	}
	if c.Port != 9090 || store.EngineOf(c.DatabaseURL) != "postgres" || c.RedisURL != "redis://127.0.0.1:6379/2" {
		t.Errorf("port %d engine %q redis %q", c.Port, store.EngineOf(c.DatabaseURL), c.RedisURL)
	}
	if c.BaseURL(1) != "https://perform.example" {
		t.Errorf("public URL %q: the trailing slash should be dropped", c.BaseURL(1))
	}
	if !bytes.Equal(c.SecretKey, key) {
		t.Errorf("secret key %x", c.SecretKey)
	}
	if c.GCPercent != -1 || c.RateLimitMax != 5 || c.RateLimitWindow != 1500*time.Millisecond {
		t.Errorf("gc %d max %d window %v", c.GCPercent, c.RateLimitMax, c.RateLimitWindow)
	}
	if c.ModelTokensPerPersonDay != 50000 || c.ModelTokensPerStudioHour != 900000 {
		t.Errorf("model budget %d a person's day, %d a studio's hour", c.ModelTokensPerPersonDay, c.ModelTokensPerStudioHour)
	}
	if c.TraineeReadsPerHour != 7 || c.TraineeWritesPerHour != 3 {
		t.Errorf("trainee reads %d writes %d an hour", c.TraineeReadsPerHour, c.TraineeWritesPerHour)
	}
	if c.LogFormat != "json" || c.LogLevel != slog.LevelDebug {
		t.Errorf("log %q %v", c.LogFormat, c.LogLevel)
	}
	if strings.Join(c.AgentPilotPhones, ",") != "+972501234567,+972527654321" {
		t.Errorf("pilot phones %v", c.AgentPilotPhones)
	}
	if c.AgentPhoneCoaches["+972501234567"] != "coa_0123456789abcdefghjkmnpqrs" || len(c.AgentPhoneCoaches) != 1 {
		t.Errorf("phone coaches %v", c.AgentPhoneCoaches)
	}
	if c.AgentModel != "claude-haiku-4-5" || c.AgentDebounce != 0 || c.AnthropicWorkspaceID != "ws" {
		t.Errorf("agent %q %v %q", c.AgentModel, c.AgentDebounce, c.AnthropicWorkspaceID)
	}
	if c.AgentPriceInput != 0.8 || c.AgentPriceOutput != 4 {
		t.Errorf("prices %v %v", c.AgentPriceInput, c.AgentPriceOutput)
	}
}

func TestSecretKeyForms(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb}, 32) // base64 of 0xfb uses + and / (or - and _)
	for _, form := range []string{
		hex.EncodeToString(key),
		base64.StdEncoding.EncodeToString(key),
		base64.RawStdEncoding.EncodeToString(key),
		base64.URLEncoding.EncodeToString(key),
		base64.RawURLEncoding.EncodeToString(key),
	} {
		c, err := FromEnv(env(map[string]string{"PERFORM_SECRET_KEY": form}))
		if err != nil || !bytes.Equal(c.SecretKey, key) {
			t.Errorf("%q: key %x, err %v", form, c.SecretKey, err)
		}
	}
}

func TestBadValues(t *testing.T) {
	for _, tc := range []struct {
		name, value, want string
	}{
		{"RATE_LIMIT_MAX", "abc", `RATE_LIMIT_MAX must be a whole number above 0; got "abc".`},
		{"RATE_LIMIT_MAX", "0", `RATE_LIMIT_MAX must be a whole number above 0; got "0".`},
		{"PERFORM_MODEL_TOKENS_PER_PERSON_DAY", "10", `PERFORM_MODEL_TOKENS_PER_PERSON_DAY must be a whole number from 1000 to 1000000000; got "10".`},
		{"PERFORM_TRAINEE_READS_PER_HOUR", "0", `PERFORM_TRAINEE_READS_PER_HOUR must be a whole number above 0; got "0".`},
		{"PERFORM_TRAINEE_WRITES_PER_HOUR", "many", `PERFORM_TRAINEE_WRITES_PER_HOUR must be a whole number above 0; got "many".`},
		{"RATE_LIMIT_WINDOW_MS", "-5", `RATE_LIMIT_WINDOW_MS must be a whole number above 0; got "-5".`},
		{"RATE_LIMIT_WINDOW_MS", "99999999999999", `RATE_LIMIT_WINDOW_MS must be a whole number above 0; got "99999999999999".`},
		{"PORT", "70000", `PORT must be a whole number from 0 to 65535; got "70000".`},
		{"PORT", "http", `PORT must be a whole number from 0 to 65535; got "http".`},
		{"AGENT_DEBOUNCE_MS", "soon", `AGENT_DEBOUNCE_MS must be a whole number of at least 0; got "soon".`},
		{"AGENT_PRICE_INPUT", "$3", `AGENT_PRICE_INPUT must be US dollars per million tokens, a number above 0 such as 3 or 0.8; got "$3".`},
		{"AGENT_PRICE_OUTPUT", "0", `AGENT_PRICE_OUTPUT must be US dollars per million tokens, a number above 0 such as 3 or 0.8; got "0".`},
		{"AGENT_PROPOSAL_TTL_MINUTES", "0", `AGENT_PROPOSAL_TTL_MINUTES must be a whole number from 1 to 1440; got "0".`},
		{"PERFORM_GC_PERCENT", "0", `PERFORM_GC_PERCENT must be a whole number above 0 (the heap growth in percent), or -1 to switch the collector off; got "0".`},
		{"PERFORM_SHUTDOWN_DELAY_MS", "90000", `PERFORM_SHUTDOWN_DELAY_MS must be a whole number from 0 to 60000; got "90000".`},
		{"PERFORM_TRUSTED_PROXIES", "10.0.0.1, lb.internal", `PERFORM_TRUSTED_PROXIES must be a comma-separated list of the load balancers' IP addresses or CIDR prefixes; "lb.internal" is not an IP address or a CIDR prefix such as 10.0.0.0/8.`},
		{"PERFORM_DATABASE_MAX_CONNS", "5000", `PERFORM_DATABASE_MAX_CONNS must be a whole number from 0 to 1000; got "5000".`},
		{"PERFORM_MCP_FAST_PATH", "no", `PERFORM_MCP_FAST_PATH must be on or off; got "no".`},
		{"LOG_FORMAT", "xml", `LOG_FORMAT must be json or text; got "xml".`},
		{"PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS", "no", `PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS must be on or off or 1 or 0; got "no".`},
		{"LOG_LEVEL", "loud", `LOG_LEVEL must be debug, info, warn or error; got "loud".`},
		{"PERFORM_PUBLIC_URL", "perform.example", `PERFORM_PUBLIC_URL (--public-url) must be an http or https origin such as https://perform.example.com, with the scheme http or https; got "perform.example".`},
		{"PERFORM_PUBLIC_URL", "ftp://perform.example", `PERFORM_PUBLIC_URL (--public-url) must be an http or https origin such as https://perform.example.com, with the scheme http or https; got "ftp://perform.example".`},
		{"PERFORM_PUBLIC_URL", "https://perform.example/app", `PERFORM_PUBLIC_URL (--public-url) must be an http or https origin such as https://perform.example.com, with no path (Perform is served at the root of its host); got "https://perform.example/app".`},
		{"PERFORM_REDIS_URL", "localhost:6379", `PERFORM_REDIS_URL must be an absolute URL such as redis://host; got "localhost:6379".`},
		{"ANTHROPIC_BASE_URL", "::", `ANTHROPIC_BASE_URL must be an absolute URL such as http://host; got "::".`},
		{"PERFORM_SECRET_KEY", "short", `PERFORM_SECRET_KEY must be 32 random bytes written as 64 hex characters or as base64 (try: openssl rand -base64 32); got 5 characters that are neither.`},
		{"AGENT_PILOT_PHONES", "0501234567,nope", `AGENT_PILOT_PHONES must be a comma-separated list of phone numbers; "nope" is not a phone number.`},
		{"AGENT_PHONE_COACHES", "0501234567=trn_x", `AGENT_PHONE_COACHES must be a comma-separated list of phone=coachId pairs with coach ids such as coa_…; "0501234567=trn_x" is not one.`},
		{"PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS", "https://api.perfox.example", `PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS must be a comma-separated list of host names such as api.perfox.example or api.perfox.example:8443, without https:// or a path; "https://api.perfox.example" is not one.`},
		{"PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS", "ok.example,*.perfox.example", `PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS must be a comma-separated list of host names such as api.perfox.example or api.perfox.example:8443, without https:// or a path; "*.perfox.example" is not one.`},
		{"PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS", "a.example:0", `PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS must be a comma-separated list of host names such as api.perfox.example or api.perfox.example:8443, without https:// or a path; "a.example:0" is not one.`},
		{"PERFORM_OPENAI_APPS_CHALLENGE", "two words", `PERFORM_OPENAI_APPS_CHALLENGE must be the token as given, one word of printable ASCII (no spaces); got "two words".`},
		{"PERFORM_OPENAI_APPS_CHALLENGE", strings.Repeat("t", 1025), `PERFORM_OPENAI_APPS_CHALLENGE must be the token as given, at most 1,024 characters; got 1025.`},
		{"AGENT_PHONE_COACHES", "12=coa_abc", `AGENT_PHONE_COACHES must be a comma-separated list of phone=coachId pairs; "12" is not a phone number.`},
	} {
		_, err := FromEnv(env(map[string]string{tc.name: tc.value}))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s=%q:\n got  %v\n want %s", tc.name, tc.value, err, tc.want)
		}
	}
}

func TestSecretNeverEchoed(t *testing.T) {
	_, err := FromEnv(env(map[string]string{"PERFORM_SECRET_KEY": "hunter2-is-not-a-key"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error %v must exist and must not contain the value", err)
	}
}

func TestFirstBadVariableIsReported(t *testing.T) {
	_, err := FromEnv(env(map[string]string{"PORT": "x", "RATE_LIMIT_MAX": "y"}))
	if err == nil || !strings.HasPrefix(err.Error(), "PORT ") || strings.Contains(err.Error(), "RATE_LIMIT_MAX") {
		t.Fatalf("want one sentence about PORT, got %v", err)
	}
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	c, err := FromEnv(env(map[string]string{"PORT": "9000", "PERFORM_DATABASE_URL": "a.db"}))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--database-url", "b.db", "--log-level", "warn"}); err != nil {
		t.Fatal(err)
	}
	if c.Port != 9000 || c.DatabaseURL != "b.db" || c.LogLevel != slog.LevelWarn {
		t.Errorf("port %d db %q level %v", c.Port, c.DatabaseURL, c.LogLevel)
	}
	if err := fs.Parse([]string{"--port", "0"}); err != nil || c.Port != 0 {
		t.Errorf("port %d err %v", c.Port, err)
	}
}

func TestNewLoggerFormat(t *testing.T) {
	var buf bytes.Buffer
	Config{}.NewLogger(&buf).Info("hello", "k", 1)
	if !strings.HasPrefix(buf.String(), "{") {
		t.Errorf("a buffer is not a terminal, want JSON: %s", buf.String())
	}
	buf.Reset()
	Config{LogFormat: "text", LogLevel: slog.LevelWarn}.NewLogger(&buf).Info("dropped")
	if buf.Len() != 0 {
		t.Errorf("info logged at warn level: %s", buf.String())
	}
	Config{LogFormat: "text"}.NewLogger(&buf).Info("hello")
	if !strings.Contains(buf.String(), "msg=hello") {
		t.Errorf("want text: %s", buf.String())
	}
}

// FuzzFromEnv feeds arbitrary values to every variable: FromEnv must never
// panic, and an error must be one sentence naming a variable.
func FuzzFromEnv(f *testing.F) {
	f.Add("PORT", "8080")
	f.Add("RATE_LIMIT_MAX", "abc")
	f.Add("RATE_LIMIT_WINDOW_MS", "-1")
	f.Add("PERFORM_SECRET_KEY", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	f.Add("AGENT_PHONE_COACHES", "050-123-4567=coa_x,=")
	f.Add("AGENT_PILOT_PHONES", ",,+972 50 123 4567")
	f.Add("PERFORM_PUBLIC_URL", "http://[::1]:80/")
	f.Add("LOG_LEVEL", "DEBUG+2")
	f.Add("PERFORM_REDIS_URL", "unix:///tmp/redis.sock")
	f.Add("PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS", "api.perfox.example, x:8443,-bad-")
	f.Fuzz(func(t *testing.T, name, value string) {
		_, err := FromEnv(env(map[string]string{name: value}))
		if err == nil {
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, name+" ") || !strings.HasSuffix(msg, ".") {
			t.Errorf("error for %s=%q is not a sentence naming it: %s", name, value, msg)
		}
	})
}

func TestDemoteKeepsWarningsAndLowersTheRest(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l := Demote(base, slog.LevelDebug-4).With("lib", "sdk")
	l.Info("routine")
	l.Debug("detail")
	l.Warn("trouble")
	l.Error("failure")
	got := buf.String()
	if strings.Contains(got, "routine") || strings.Contains(got, "detail") {
		t.Errorf("info and debug records should be below debug: %s", got)
	}
	if !strings.Contains(got, "level=WARN msg=trouble lib=sdk") || !strings.Contains(got, "level=ERROR msg=failure") {
		t.Errorf("warnings and errors should keep their level: %s", got)
	}
	buf.Reset()
	Demote(base, slog.LevelDebug).Info("counts")
	if !strings.Contains(buf.String(), "level=DEBUG msg=counts") {
		t.Errorf("info demoted to debug: %q", buf.String())
	}
}

// FuzzValidHost: a host ValidHost accepts has no scheme, path, user,
// space or wildcard, and its port is a port.
func FuzzValidHost(f *testing.F) {
	for _, s := range []string{"api.perfox.example", "a:443", "a:0", "a:+1", "https://a", "a/b", "u@a", "*.a", "a..b", "::1", "[::1]:80", "1.2.3.4:65535", strings.Repeat("a", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if !ValidHost(h) {
			return
		}
		if strings.ContainsAny(h, "/@*?# \t[]%") || strings.Contains(h, "..") {
			t.Fatalf("accepted %q", h)
		}
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			if p, err := strconv.Atoi(h[i+1:]); err != nil || p < 1 || p > 65535 {
				t.Fatalf("accepted the port of %q", h)
			}
		}
	})
}

// TestPublicOriginAcceptsOnlyAnOrigin: PERFORM_PUBLIC_URL is the OAuth
// issuer, so it is an http(s) scheme and a host, perhaps a port, and
// nothing else; each refusal names what is wrong, the flag and the variable.
func TestPublicOriginAcceptsOnlyAnOrigin(t *testing.T) {
	cases := []struct {
		in, want, refusal string
	}{
		{"", "", ""},
		{"https://perform.example", "https://perform.example", ""},
		{"https://perform.example/", "https://perform.example", ""},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", ""},
		{"HTTPS://Perform.Example:443/", "HTTPS://Perform.Example:443", ""},
		{"http://[::1]:80/", "http://[::1]:80", ""},
		{"ftp://x", "", "the scheme http or https"},
		{"perform.example", "", "the scheme http or https"},
		{"javascript:alert(1)", "", "a scheme and a host"},
		{"https:perform.example", "", "a scheme and a host"},
		{"https://", "", "a host"},
		{"https:///path", "", "a host"},
		{"https://:443", "", "a host"},
		{"https://perform.example:", "", "a port number"},
		{"https://perform.example:0", "", "a port from 1 to 65535"},
		{"https://perform.example:99999", "", "a port"},
		{"https://user:pw@perform.example", "", "no user or password"},
		{"https://perform.example/app", "", "no path"},
		{"https://perform.example//", "", "no path"},
		{"https://perform.example/%2F", "", "no path"},
		{"https://perform.example?x=1", "", "no query"},
		{"https://perform.example/?", "", "no query"},
		{"https://perform.example#top", "", "no fragment"},
		{"https://perform.example/#", "", "no fragment"},
		{"https://perf%20orm.example", "", "a host"},
	}
	for _, c := range cases {
		got, err := PublicOrigin(c.in)
		if c.refusal == "" {
			if err != nil || got != c.want {
				t.Errorf("PublicOrigin(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("PublicOrigin(%q) accepted it as %q", c.in, got)
			continue
		}
		msg := err.Error()
		for _, w := range []string{c.refusal, "PERFORM_PUBLIC_URL", "--public-url", strconv.Quote(c.in)} {
			if !strings.Contains(msg, w) {
				t.Errorf("PublicOrigin(%q): %q lacks %q", c.in, msg, w)
			}
		}
	}
}

// FuzzPublicOrigin: what PublicOrigin accepts parses back to an http(s)
// scheme and a host with nothing after them, and is accepted again as is.
func FuzzPublicOrigin(f *testing.F) {
	for _, s := range []string{"https://perform.example/", "http://[::1]:80", "ftp://x", "https://u@h", "https://h/p?q#f", "https://h:", "http://h:65536", "https:h", "http://%41", "http://h/?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := PublicOrigin(v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "PERFORM_PUBLIC_URL (--public-url) ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal of %q is not a sentence naming the variable and the flag: %s", v, err)
			}
			return
		}
		if v == "" {
			return
		}
		u, perr := url.Parse(got)
		if perr != nil {
			t.Fatalf("accepted %q as %q, which does not parse: %v", v, got, perr)
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme != "http" && scheme != "https" || u.Hostname() == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(got, "#?@ ") {
			t.Fatalf("accepted %q as %q: not an origin", v, got)
		}
		if again, err := PublicOrigin(got); err != nil || again != got {
			t.Fatalf("PublicOrigin(%q) = %q, %v: not stable", got, again, err)
		}
	})
}
