// Command driver signs in to Perform in place of a person at a browser,
// for the OAuth conformance runner's --login CMD (and for tests): given an
// authorization URL it follows it to the sign-in page, submits the phone,
// reads the one-time code from the server's log (the demo writes codes
// there when no WhatsApp gateway is configured), submits it, approves the
// consent page and follows the redirect to the client's callback.
//
//	go build -o /tmp/perform-login ./internal/login/driver
//	oauth-conformance --issuer URL --client-id ID \
//	    --login "/tmp/perform-login --log /tmp/perform.log --phone 050-123-4567"
//
// The runner appends the authorization URL as the last argument.
//
// With --issuer instead of a URL the driver is the client too: it runs the
// whole authorization-code flow with PKCE S256 against the issuer (its
// metadata, a client registered on the spot unless --client-id names one,
// the sign-in and consent as above, the code read off the redirect to the
// loopback callback, the token request) and prints the access token, for
// scripts that need a person's bearer:
//
//	token=$(/tmp/perform-login --issuer http://127.0.0.1:8080 --log /tmp/perform.log \
//	    --phone 050-300-0000 --scope "training:read training:write")
//
// It is a test tool, not part of the shipped binaries.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/testkit"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("driver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", os.Getenv("PERFORM_LOGIN_LOG"), "the server's log file, where the one-time codes are written (PERFORM_LOGIN_LOG)")
	phone := fs.String("phone", envOr("PERFORM_LOGIN_PHONE", "050-123-4567"), "the phone to sign in with: the demo coach Dana Levi's by default (PERFORM_LOGIN_PHONE)")
	wait := fs.Duration("wait", 30*time.Second, "how long to wait for the code to reach the log")
	decision := fs.String("decision", "approve", "the consent page's answer: approve or deny")
	issuer := fs.String("issuer", "", "run the whole authorization-code flow against this issuer and print the access token")
	clientID := fs.String("client-id", "", "with --issuer: a registered public client whose redirect URIs include http://127.0.0.1/callback (default: register one)")
	scope := fs.String("scope", "", "with --issuer: the scopes to ask for, space-separated (default: the server's default for the person)")
	printRefresh := fs.Bool("refresh", false, "with --issuer: print the refresh token on a second line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *issuer != "" {
		if fs.NArg() != 0 || *logPath == "" {
			fmt.Fprintln(stderr, "usage: driver --issuer URL --log SERVER_LOG [--phone PHONE] [--client-id ID] [--scope SCOPES] [--refresh]")
			return 2
		}
		// stdout is the token alone; the steps go to stderr.
		d := &driver{phone: *phone, logPath: *logPath, wait: *wait, decision: *decision, out: stderr}
		tok, err := d.tokens(ctx, *issuer, *clientID, *scope)
		if err != nil {
			fmt.Fprintln(stderr, "driver:", err)
			return 1
		}
		fmt.Fprintln(stdout, tok.AccessToken)
		if *printRefresh {
			fmt.Fprintln(stdout, tok.RefreshToken)
		}
		return 0
	}
	if fs.NArg() != 1 || *logPath == "" {
		fmt.Fprintln(stderr, "usage: driver --log SERVER_LOG [--phone PHONE] AUTHORIZATION_URL")
		return 2
	}
	d := &driver{phone: *phone, logPath: *logPath, wait: *wait, decision: *decision, out: stdout}
	final, err := d.signIn(ctx, fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "driver:", err)
		return 1
	}
	fmt.Fprintln(stdout, "landed on", final)
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

type driver struct {
	phone, logPath, decision string
	logFrom                  int64 // where in the log the code is looked for
	wait                     time.Duration
	out                      io.Writer
	c                        *http.Client
	// callback, when set, is the client's loopback redirect URI: the walk
	// stops at the redirect to it (no listener needs to be there) and
	// answers the redirect's Location.
	callback *url.URL
}

// maxSteps bounds the pages walked: phone, code, perhaps a choice, consent.
const maxSteps = 8

// signIn walks from the authorization URL to the page that is no longer
// one of Perform's forms (the client's callback) and answers its URL.
func (d *driver) signIn(ctx context.Context, authURL string) (string, error) {
	jar, _ := cookiejar.New(nil)
	d.c = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	if d.callback != nil {
		d.c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if isCallback(d.callback, req.URL) {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
	}
	page, err := d.do(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	for step := 0; step < maxSteps; step++ {
		if page.location != "" {
			return page.location, nil
		}
		f, ok := formOf(page)
		if !ok {
			if page.status/100 != 2 {
				return "", fmt.Errorf("%s answered %d: %s", page.url, page.status, snippet(page.body))
			}
			return page.url.String(), nil
		}
		values := f.fields
		switch f.action.Path {
		case "/login":
			values.Set("phone", d.phone)
			// Only a code written after this phone was submitted is its code.
			if st, err := os.Stat(d.logPath); err == nil {
				d.logFrom = st.Size()
			}
		case "/login/code":
			code, err := d.code(ctx)
			if err != nil {
				return "", err
			}
			values.Set("code", code)
		case "/login/choose":
			// The first record (the default choice) is taken.
		case "/authorize":
			values.Set("decision", d.decision)
		default:
			return "", fmt.Errorf("%s shows a form to %s the driver does not know", page.url, f.action)
		}
		fmt.Fprintf(d.out, "%s: submitting the form to %s\n", page.url.Path, f.action.Path)
		page, err = d.do(ctx, http.MethodPost, f.action.String(), values)
		if err != nil {
			return "", err
		}
		if page.status == http.StatusUnprocessableEntity || page.status == http.StatusForbidden || page.status == http.StatusTooManyRequests {
			return "", fmt.Errorf("%s refused the form (%d): %s", f.action.Path, page.status, textOf(page.body))
		}
	}
	return "", errors.New("no callback after the sign-in, the choice and the consent")
}

// code waits for the one-time code sent to d.phone to reach the log, after
// the phone was submitted.
func (d *driver) code(ctx context.Context) (string, error) {
	last4 := lastDigits(d.phone, 4)
	deadline := time.Now().Add(d.wait)
	for {
		if code, err := lastCode(d.logPath, d.logFrom, last4); err != nil {
			return "", err
		} else if code != "" {
			return code, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no sign-in code for …%s reached %s within %v (is it the server's log, at info level, with no WhatsApp gateway configured?)", last4, d.logPath, d.wait)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lastCode is the newest code the log holds from offset on for a phone
// ending in last4.
func lastCode(path string, offset int64, last4 string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the server's log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "", err
	}
	var code string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		for _, c := range testkit.SentCodes(sc.Text()) {
			if c.Last4 == last4 {
				code = c.Code
			}
		}
	}
	return code, sc.Err()
}

func lastDigits(s string, n int) string {
	var d []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	if len(d) > n {
		d = d[len(d)-n:]
	}
	return string(d)
}

type page struct {
	url    *url.URL
	status int
	body   string
	// location is the redirect to the callback the walk stopped at.
	location string
}

func (d *driver) do(ctx context.Context, method, target string, form url.Values) (*page, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := d.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	p := &page{url: resp.Request.URL, status: resp.StatusCode, body: string(b)}
	if d.callback != nil && resp.StatusCode/100 == 3 {
		if loc, err := resp.Location(); err == nil && isCallback(d.callback, loc) {
			p.location = loc.String()
		}
	}
	return p, nil
}

type form struct {
	action *url.URL
	fields url.Values
}

var (
	formRE  = regexp.MustCompile(`(?s)<form\b([^>]*)>(.*?)</form>`)
	inputRE = regexp.MustCompile(`<input\b([^>]*)>`)
	attrRE  = regexp.MustCompile(`([a-zA-Z][\w-]*)(?:="([^"]*)")?`)
)

// formOf is the page's first POST form: its action and the values a
// browser would send without typing (hidden fields, a checked radio).
func formOf(p *page) (form, bool) {
	if !strings.Contains(p.body, "<form") {
		return form{}, false
	}
	for _, m := range formRE.FindAllStringSubmatch(p.body, -1) {
		attrs := attrsOf(m[1])
		if !strings.EqualFold(attrs["method"], "post") {
			continue
		}
		action, err := p.url.Parse(attrs["action"])
		if err != nil {
			continue
		}
		f := form{action: action, fields: url.Values{}}
		for _, in := range inputRE.FindAllStringSubmatch(m[2], -1) {
			a := attrsOf(in[1])
			_, checked := a["checked"]
			switch strings.ToLower(a["type"]) {
			case "hidden":
				f.fields.Add(a["name"], a["value"])
			case "radio":
				if checked {
					f.fields.Set(a["name"], a["value"])
				}
			}
		}
		return f, true
	}
	return form{}, false
}

func attrsOf(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		out[strings.ToLower(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

var tagRE = regexp.MustCompile(`<[^>]+>`)

// textOf is a page's words without its markup, for an error message.
func textOf(body string) string {
	if i := strings.Index(body, "<main>"); i >= 0 {
		body = body[i:]
	}
	return snippet(strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(body, " "))), " "))
}

func snippet(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
