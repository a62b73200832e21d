// Package netguard keeps Perform's outbound requests to URLs a caller
// chose (client ID metadata documents, agent platform callbacks) out of
// the network Perform runs in: no private, loopback, link-local, shared
// (carrier-grade NAT, where some clouds put their metadata service),
// reserved, documentation, multicast or broadcast address, and none that
// embeds one (IPv4-mapped IPv6, NAT64, 6to4).
//
// The address is checked when the connection is dialled, after DNS
// answered (a net.Dialer Control function), so a name that resolves, or
// rebinds between a check and the request, to an inner address is refused
// too; every redirect's URL is checked again. Loopback is refused unless a
// caller opts in (Policy.AllowLoopback), for local testing.
package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is what every refusal is: errors.Is(err, ErrRefused). A
// refusal's own text is the sentence why ("169.254.169.254 is not public:
// it is in 169.254.0.0/16, link-local (cloud metadata)").
var ErrRefused = errors.New("refused by the outbound guard")

type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refuse(format string, a ...any) error { return &refusal{fmt.Sprintf(format, a...)} }

// Range is a block of addresses an outbound request must not reach.
type Range struct {
	Prefix netip.Prefix
	Name   string // what it is, for the refusal's sentence
}

// Refused lists the blocks refused, loopback first. IPv4-mapped IPv6
// addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry.
var Refused = []Range{
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT, cloud metadata)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (and broadcast)"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 (it reaches an IPv4 address)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo among them)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4 (it reaches an IPv4 address)"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Policy says what a guard lets through. The zero Policy lets through
// public unicast addresses only.
type Policy struct {
	// AllowLoopback lets requests reach 127.0.0.0/8 and ::1, by address or
	// by the name localhost, over http as well as https: for a server
	// under test on the same machine. Off in production.
	AllowLoopback bool
}

// Block is the refused range addr is in, and whether it is in one.
// Loopback is reported like any other; Policy.CheckAddr applies the
// allowance.
func Block(addr netip.Addr) (Range, bool) {
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() {
		return Range{Name: "not an address"}, true
	}
	for _, r := range Refused {
		if r.Prefix.Contains(addr) {
			return r, true
		}
	}
	if addr.Is6() && !globalUnicast6.Prefix.Contains(addr) {
		return Range{Name: "outside " + globalUnicast6.Prefix.String() + ", " + globalUnicast6.Name}, true
	}
	return Range{}, false
}

// globalUnicast6 is where public IPv6 addresses are; the rest is reserved.
var globalUnicast6 = Range{netip.MustParsePrefix("2000::/3"), "IPv6 global unicast"}

// CheckAddr refuses an address outside the public internet (wrapping
// ErrRefused), loopback unless the policy allows it.
func (p Policy) CheckAddr(addr netip.Addr) error {
	r, blocked := Block(addr)
	if !blocked || p.AllowLoopback && r.Name == "loopback" {
		return nil
	}
	if r.Prefix.IsValid() {
		return refuse("%s is not public: it is in %s, %s", addr, r.Prefix, r.Name)
	}
	return refuse("%s is not public: it is %s", addr, r.Name)
}

// Control is a net.Dialer Control function: it refuses a connection to an
// address the policy refuses, after DNS, for every address dialled.
func (p Policy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse("%q is not an IP address and port", address)
	}
	return p.CheckAddr(ap.Addr())
}

// CheckURL checks a URL before it is requested: absolute, https (http
// only to a loopback host, when loopback is allowed), no user
// information, a usable host and port, and a host that is not an address
// (or the name localhost) the policy refuses. A name is checked again, as
// an address, when it is dialled.
func (p Policy) CheckURL(u *url.URL) error {
	if u == nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" {
		return refuse("the URL is not absolute")
	}
	if u.User != nil {
		return refuse("the URL carries user information")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || strings.ContainsAny(host, "%/\\@ ") {
		return refuse("the URL has no usable host")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return refuse("the URL's port %q is not a port", port)
		}
	}
	loopback := false
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := p.CheckAddr(addr); err != nil {
			return err
		}
		r, blocked := Block(addr)
		loopback = blocked && r.Name == "loopback"
	} else if name := strings.TrimSuffix(host, "."); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if !p.AllowLoopback {
			return refuse("%s is loopback, not public", host)
		}
		loopback = true
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if loopback && p.AllowLoopback {
			return nil
		}
	}
	return refuse("the URL is %s, not https", u.Scheme)
}

// ClientOptions shape Client's http.Client.
type ClientOptions struct {
	// Timeout bounds the whole request, the dial, the TLS handshake and
	// the wait for the response's header (default 5 s).
	Timeout time.Duration
	// TLS is the TLS configuration (nil: the system's roots, TLS 1.2+).
	TLS *tls.Config
	// MaxRedirects is how many redirects are followed, each one's URL
	// checked; 0 follows none (the redirect itself is the answer).
	MaxRedirects int
	// MaxIdleConnsPerHost keeps that many idle connections a host (default 2).
	MaxIdleConnsPerHost int
}

// Dialer is a net.Dialer that refuses what the policy refuses.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: p.Control}
}

// Transport is an http.Transport that dials through the guard and never
// through a proxy (a proxy would dial the address itself, past the guard).
func (p Policy) Transport(o ClientOptions) *http.Transport {
	o = o.withDefaults()
	tlsConfig := o.TLS
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           p.Dialer(o.Timeout).DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   o.MaxIdleConnsPerHost,
		IdleConnTimeout:       time.Minute,
		ForceAttemptHTTP2:     true,
	}
}

// Client is an http.Client for URLs a caller chose: every dial is
// guarded, every redirect's URL checked (and at most o.MaxRedirects
// followed). Check the first URL with CheckURL before the request, or use
// Get, which does.
func (p Policy) Client(o ClientOptions) *http.Client {
	o = o.withDefaults()
	return &http.Client{
		Transport: p.Transport(o),
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if o.MaxRedirects == 0 {
				return http.ErrUseLastResponse
			}
			if len(via) > o.MaxRedirects {
				return refuse("it redirects more than %d times", o.MaxRedirects)
			}
			return p.CheckURL(req.URL)
		},
	}
}

// Do checks req's URL and sends it with c (a Client of this policy).
func (p Policy) Do(c *http.Client, req *http.Request) (*http.Response, error) {
	if err := p.CheckURL(req.URL); err != nil {
		return nil, err
	}
	return c.Do(req)
}

// Get is Do of a GET of rawURL with ctx.
func (p Policy) Get(ctx context.Context, c *http.Client, rawURL string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	return p.Do(c, req)
}

func (o ClientOptions) withDefaults() ClientOptions {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxIdleConnsPerHost <= 0 {
		o.MaxIdleConnsPerHost = 2
	}
	if o.MaxRedirects < 0 {
		o.MaxRedirects = 0
	}
	return o
}
