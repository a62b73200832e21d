package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
)

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cmdOAuthClientAdd adds an OAuth client from the command line: a client
// the operator vouches for (the consent page says so). Its id goes alone
// on stdout; a confidential client's secret follows on the next line, the
// only time it exists in clear.
func cmdOAuthClientAdd(ctx context.Context, e env, args []string) error {
	fs := newFlags("oauth client add")
	name := fs.String("name", "", "the app's name, shown on the consent page")
	var redirects listFlag
	fs.Var(&redirects, "redirect-uri", "a redirect URI (repeat for several); http on 127.0.0.1, [::1] or localhost matches any port")
	public := fs.Bool("public", false, "a public client (PKCE only, no secret: token_endpoint_auth_method none)")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("oauth client add", rest), required("name", *name)); err != nil {
		return firstUsage(err)
	}
	if len(redirects) == 0 {
		return usagef("--redirect-uri is required: the URI the app receives its code at (repeat the flag for several)")
	}
	method := "client_secret_basic"
	if *public {
		method = "none"
	}
	c, secret, err := oauth.AddClient(ctx, st, time.Now(), store.ClientFromCLI, *name, redirects, method)
	if err != nil {
		return usagef("%v", err)
	}
	fmt.Fprintln(e.stdout, c.ID)
	if secret != "" {
		fmt.Fprintln(e.stdout, secret)
		fmt.Fprintf(e.stderr, "Added OAuth client %q (%s), confidential (client_secret_basic or client_secret_post). Its secret is on the second line and is shown only this once.\n", c.Name, c.ID)
		return nil
	}
	fmt.Fprintf(e.stderr, "Added OAuth client %q (%s), public (PKCE, no secret).\n", c.Name, c.ID)
	return nil
}
