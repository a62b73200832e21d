package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// adminStore reads the configuration (with --database-url as an override),
// parses the command's flags and opens the store, applying migrations.
func adminStore(ctx context.Context, e env, fs *flag.FlagSet, args []string) (store.Store, []string, error) {
	cfg, err := config.FromEnv(e.getenv)
	if err != nil {
		return nil, nil, err
	}
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "postgres:// URL or SQLite file path (PERFORM_DATABASE_URL)")
	rest, err := parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	// Administrative commands stay quiet unless something is wrong.
	cfg.LogLevel = max(cfg.LogLevel, slog.LevelWarn)
	st, err := store.Open(ctx, cfg.DatabaseURL, cfg.NewLogger(e.stderr))
	if err != nil {
		return nil, nil, fmt.Errorf("opening the database (PERFORM_DATABASE_URL or --database-url): %w", err)
	}
	return st, rest, nil
}

func noArgs(name string, rest []string) error {
	if len(rest) > 0 {
		return usagef("perform %s takes no arguments; got %q", name, rest[0])
	}
	return nil
}

func required(flagName, value string) error {
	if strings.TrimSpace(value) == "" {
		return usagef("--%s is required", flagName)
	}
	return nil
}

func cmdMigrate(ctx context.Context, e env, args []string) error {
	st, rest, err := adminStore(ctx, e, newFlags("migrate"), args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := noArgs("migrate", rest); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "The %s database is up to date.\n", st.Engine())
	return nil
}

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$`)

func cmdStudioCreate(ctx context.Context, e env, args []string) error {
	fs := newFlags("studio create")
	name := fs.String("name", "", "the studio's name")
	slug := fs.String("slug", "", "short unique name: lowercase letters, digits and hyphens")
	region := fs.String("region", "IL", "default phone region (ISO 3166 code)")
	tier := fs.String("tier", "free", "plan: free, pro or business")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("studio create", rest), required("name", *name), required("slug", *slug)); err != nil {
		return firstUsage(err)
	}
	if !slugPattern.MatchString(*slug) {
		return usagef("--slug must be 2 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit; got %q", *slug)
	}
	r := strings.ToUpper(strings.TrimSpace(*region))
	if phonenumbers.GetCountryCodeForRegion(r) == 0 {
		return usagef("--region must be a two-letter country code such as IL or US; got %q", *region)
	}
	if _, ok := domain.Tiers[*tier]; !ok {
		return usagef("--tier must be free, pro or business; got %q", *tier)
	}
	studio := domain.Studio{Name: strings.TrimSpace(*name), Slug: *slug, Region: r, Tier: *tier}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Created studio %s %q (slug %s, region %s, tier %s).\n", studio.ID, studio.Name, studio.Slug, studio.Region, studio.Tier)
	return nil
}

func cmdStudioSettings(ctx context.Context, e env, args []string) error {
	fs := newFlags("studio settings")
	slug := fs.String("studio", "", "the studio's slug")
	assistant := fs.String("trainee-assistant", "", "on or off: whether the studio's trainees may use the WhatsApp assistant")
	weekStartsOn := fs.String("week-starts-on", "", "the first day of the studio's week (sunday, monday … saturday), or zone for its time zone's custom")
	template := fs.String("digest-template", "", "the approved WhatsApp template the coaches' morning digest goes out as outside the 24-hour window, or none to remove it")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("studio settings", rest), required("studio", *slug)); err != nil {
		return firstUsage(err)
	}
	studio, err := studioBySlug(ctx, st, *slug)
	if err != nil {
		return err
	}
	switch day, ok := domain.ParseWeekday(*weekStartsOn); {
	case *weekStartsOn == "":
	case *weekStartsOn == "zone" || ok:
		var v any // zone: the setting removed
		if ok {
			v = domain.WeekdayName(day)
		}
		if studio, err = store.PatchStudioSettings(ctx, st, studio.ID, map[string]any{"weekStartsOn": v}); err != nil {
			return err
		}
	default:
		return usagef("--week-starts-on must be a day of the week (sunday, monday … saturday) or zone; got %q", *weekStartsOn)
	}
	switch name := strings.TrimSpace(*template); {
	case name == "":
	case name == "none" || domain.ValidTemplateName(name):
		if name == "none" {
			name = ""
		}
		if studio, err = store.PatchStudioSettings(ctx, st, studio.ID, map[string]any{"digestTemplate": name}); err != nil {
			return err
		}
	default:
		return usagef("--digest-template must be a WhatsApp template's name (lowercase letters, digits and _, such as morning_digest) or none; got %q", name)
	}
	switch *assistant {
	case "":
	case "on", "off":
		if studio, err = store.PatchStudioSettings(ctx, st, studio.ID, map[string]any{"traineeAssistant": *assistant == "on"}); err != nil {
			return err
		}
	default:
		return usagef("--trainee-assistant must be on or off; got %q", *assistant)
	}
	onOff := map[bool]string{true: "on", false: "off"}
	digest := studio.DigestTemplate()
	if digest == "" {
		digest = "none"
	}
	fmt.Fprintf(e.stdout, "Studio %s: time zone %s, trainee assistant %s, morning digest template %s, weeks start on %s.\n", studio.Slug, studio.TimeZone(), onOff[studio.TraineeAssistant()], digest, domain.WeekdayName(studio.FirstDay()))
	return nil
}

// firstUsage reports only the first of joined usage errors: one sentence.
func firstUsage(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()[0]
	}
	return err
}

// studioBySlug names the command that lists nothing: a missing slug is a
// sentence telling how to create the studio.
func studioBySlug(ctx context.Context, st store.Store, slug string) (domain.Studio, error) {
	s, err := st.StudioBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("no studio has the slug %q; create it with perform studio create --name NAME --slug %s", slug, slug)
	}
	return s, err
}

// mintKey creates an API key for the studio within its tier's key limit
// (store.MintAPIKey, which also audits it) and returns the key (the only
// time it exists in clear).
func mintKey(ctx context.Context, st store.Store, studio domain.Studio, name string, kind auth.CredentialKind, scopes []string) (string, domain.APIKey, error) {
	key := auth.NewKey()
	k := domain.APIKey{StudioID: studio.ID, Name: name, Prefix: auth.Display(key), Hash: auth.Hash(key), Kind: string(kind), Scopes: scopes}
	ev := &domain.AuditEvent{CredentialID: "cli", Method: "POST", Route: "perform key create", Status: 201, Source: domain.SourceCLI, RequestID: ids.New(ids.Request)}
	err := st.MintAPIKey(ctx, &k, studio.Limits().MaxAPIKeys, ev)
	var le *store.LimitError
	if errors.As(err, &le) {
		return "", k, fmt.Errorf("studio %s is on the %s tier, which allows %d live API keys, and has %d; revoke one with perform key revoke PREFIX (see perform key list --studio %s)",
			studio.Slug, studio.Limits().Name, le.Limit, le.Count, studio.Slug)
	}
	return key, k, err
}

func cmdKeyCreate(ctx context.Context, e env, args []string) error {
	fs := newFlags("key create")
	slug := fs.String("studio", "", "the studio's slug")
	name := fs.String("name", "", "what the key is for, e.g. the integration's name")
	scopeList := fs.String("scopes", "", "what the key may do, comma-separated: studio:read, studio:write, studio:admin, billing (default all four)")
	kindName := fs.String("kind", auth.KeyKindStudio, "studio (the studio's own integrations) or platform (an agent platform answering the studio's customers; reads only the public offer, takes no --scopes)")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("key create", rest), required("studio", *slug), required("name", *name)); err != nil {
		return firstUsage(err)
	}
	studio, err := studioBySlug(ctx, st, *slug)
	if err != nil {
		return err
	}
	kind, err := auth.ParseKeyKind(*kindName)
	if err != nil {
		return usagef("--kind: %v", err)
	}
	scopes := auth.PlatformScopes
	if kind == auth.KindPlatformKey && strings.TrimSpace(*scopeList) != "" {
		return usagef("--scopes: a platform key reads only the studio's public offer and takes no scopes; leave --scopes out")
	}
	if kind == auth.KindStudioKey {
		if scopes, err = auth.ParseScopes(*scopeList); err != nil {
			return usagef("--scopes: %v", err)
		}
	}
	key, k, err := mintKey(ctx, st, studio, strings.TrimSpace(*name), kind, slices.Clone(scopes))
	if err != nil {
		return err
	}
	// The key alone on stdout, so it can be captured; the rest on stderr.
	fmt.Fprintln(e.stdout, key)
	what := "API key"
	if kind == auth.KindPlatformKey {
		what = "agent platform key"
	}
	fmt.Fprintf(e.stderr, "Created %s %s (%s) for studio %s with scopes %s. It is shown only this once: store it now.\n", what, k.Prefix, k.ID, studio.Slug, strings.Join(k.Scopes, ", "))
	return nil
}

func cmdKeyList(ctx context.Context, e env, args []string) error {
	fs := newFlags("key list")
	slug := fs.String("studio", "", "the studio's slug")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("key list", rest), required("studio", *slug)); err != nil {
		return firstUsage(err)
	}
	studio, err := studioBySlug(ctx, st, *slug)
	if err != nil {
		return err
	}
	keys, err := st.ListAPIKeys(ctx, studio.ID)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintf(e.stderr, "Studio %s has no API keys; create one with perform key create --studio %s --name NAME.\n", studio.Slug, studio.Slug)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, k := range keys {
		lastUsed, revoked := "never used", "live"
		if k.LastUsedAt != nil {
			lastUsed = "last used " + stamp(*k.LastUsedAt)
		}
		if k.RevokedAt != nil {
			revoked = "revoked " + stamp(*k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tcreated %s\t%s\t%s\n", k.Prefix, k.ID, k.Name, strings.Join(k.Scopes, ","), stamp(k.CreatedAt), lastUsed, revoked)
	}
	return tw.Flush()
}

func cmdKeyRevoke(ctx context.Context, e env, args []string) error {
	st, rest, err := adminStore(ctx, e, newFlags("key revoke"), args)
	if err != nil {
		return err
	}
	defer st.Close()
	if len(rest) != 1 {
		return usagef("give exactly one key prefix (pf_live_…), key id (key_…) or the whole key, as perform key list shows")
	}
	k, err := findKey(ctx, st, rest[0])
	if err != nil {
		return err
	}
	if k.RevokedAt != nil {
		fmt.Fprintf(e.stdout, "Key %s (%s) was already revoked at %s.\n", k.Prefix, k.Name, stamp(*k.RevokedAt))
		return nil
	}
	if err := st.RevokeAPIKey(ctx, k.ID, time.Now()); err != nil {
		return err
	}
	studio, err := st.StudioByID(ctx, k.StudioID)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked key %s (%s) of studio %s; the next request with it is refused.\n", k.Prefix, k.Name, studio.Slug)
	return nil
}

func cmdKeyScopes(ctx context.Context, e env, args []string) error {
	fs := newFlags("key scopes")
	add := fs.String("add", "", "scopes the key gains, comma-separated: studio:read, studio:write, studio:admin, billing")
	remove := fs.String("remove", "", "scopes the key loses, comma-separated; it keeps at least one")
	set := fs.String("set", "", "the key's whole new list of scopes, comma-separated, in place of --add and --remove")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if len(rest) != 1 {
		return usagef("give exactly one key prefix (pf_live_…), key id (key_…) or the whole key, as perform key list shows, then --add, --remove or --set")
	}
	list := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	}
	change := auth.ScopeChange{Set: list(*set), Add: list(*add), Remove: list(*remove)}
	if change.Empty() {
		return usagef("name the scopes: --add billing, --remove studio:write, or --set studio:read,billing")
	}
	k, err := findKey(ctx, st, rest[0])
	if err != nil {
		return err
	}
	before := strings.Join(k.Scopes, ",")
	ev := &domain.AuditEvent{CredentialID: "cli", Method: "PATCH", Route: "perform key scopes", Status: 200, Source: domain.SourceCLI, RequestID: ids.New(ids.Request)}
	var usage error
	k, err = st.SetAPIKeyScopes(ctx, k.StudioID, k.ID, func(k domain.APIKey) ([]string, error) {
		if k.Kind == string(auth.KindPlatformKey) {
			usage = usagef("key %s (%s) is an agent platform's key: it reads only the studio's public offer and takes no scopes", k.Prefix, k.Name)
			return nil, usage
		}
		next, err := change.Apply(k.Scopes)
		if err != nil {
			usage = usagef("%v", err)
			return nil, usage
		}
		return next, nil
	}, ev)
	var ce *store.ConflictError
	switch {
	case usage != nil:
		return usage
	case errors.As(err, &ce):
		return errors.New(strings.TrimSuffix(ce.Message, "."))
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "Key %s (%s) had %s and now has %s, from its next request.\n", k.Prefix, k.Name, before, strings.Join(k.Scopes, ","))
	return nil
}

// findKey finds a key by its prefix, its id or the whole key pasted in.
// A whole key is looked up by its prefix and must match the stored hash;
// it is never repeated, only its prefix.
func findKey(ctx context.Context, st store.Store, arg string) (domain.APIKey, error) {
	lookup := arg
	whole := auth.WellFormed(arg)
	if whole {
		lookup = auth.Display(arg)
	}
	k, err := st.FindAPIKey(ctx, "", lookup)
	switch {
	case errors.Is(err, store.ErrNotFound) && whole:
		return k, fmt.Errorf("no API key has the prefix %s of the key you gave; perform key list --studio SLUG shows them", lookup)
	case errors.Is(err, store.ErrNotFound):
		return k, fmt.Errorf("no API key has the prefix or id %s; perform key list --studio SLUG shows them", printable(arg))
	case err != nil:
		return k, err
	case whole && !auth.HashEqual(k.Hash, auth.Hash(arg)):
		return k, fmt.Errorf("the key you gave starts like key %s (%s) but is not it; check the key, or revoke by prefix: perform key revoke %s", k.Prefix, k.Name, k.Prefix)
	}
	return k, nil
}

func cmdAudit(ctx context.Context, e env, args []string) error {
	fs := newFlags("audit")
	slug := fs.String("studio", "", "the studio's slug")
	limit := fs.Int("limit", 50, "how many events, newest first (1 to 200)")
	offset := fs.Int("offset", 0, "how many of the newest events to skip, to page back")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("audit", rest), required("studio", *slug)); err != nil {
		return firstUsage(err)
	}
	if *limit < 1 || *limit > 200 {
		return usagef("--limit must be from 1 to 200; got %d", *limit)
	}
	if *offset < 0 {
		return usagef("--offset must be 0 or more; got %d", *offset)
	}
	studio, err := studioBySlug(ctx, st, *slug)
	if err != nil {
		return err
	}
	events, err := st.ListAudit(ctx, studio.ID, store.Page{Limit: *limit, Offset: *offset})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, ev := range events.Items {
		// The route is the lane's pattern ("POST /v1/automation/tasks"),
		// which names the method; an unmatched request has only its path.
		route := ev.Route
		if !strings.HasPrefix(route, ev.Method+" ") {
			route = ev.Method + " " + route
		}
		resource := ev.ResourceID
		if resource == "" {
			resource = "-"
		}
		// Ids and paths are the callers' choice: escaped, so none can move
		// the cursor, clear the screen or forge a line.
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1fms\t%s\t%s\t%s\t%s\n",
			stamp(ev.At), printable(route), ev.Status, ev.DurationMs, printable(ev.Source),
			printable(ev.CredentialID), printable(resource), printable(ev.RequestID))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case len(events.Items) == 0 && events.Total > 0:
		fmt.Fprintf(e.stderr, "No events past --offset %d; the studio has %d.\n", *offset, events.Total)
	case *offset > 0 || len(events.Items) < events.Total:
		fmt.Fprintf(e.stderr, "Showing events %d to %d of %d, newest first (--limit, --offset).\n", *offset+1, *offset+len(events.Items), events.Total)
	}
	return nil
}

// printable is s, or s quoted with Go escapes when it holds anything that
// is not a printable character (control characters, tabs, newlines,
// invalid UTF-8): what a terminal shows is then exactly what was stored.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
