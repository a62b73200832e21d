package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every range either old copy refused (the OAuth metadata fetcher's and the
// agent platform broker's) is refused, as are the ranges that carry an
// IPv4 address inside IPv6; public addresses pass.
func TestCheckAddr(t *testing.T) {
	refused := []string{
		// loopback, private, link-local, unspecified, multicast
		"127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254", "0.0.0.0",
		"224.0.0.1", "239.255.255.250", "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "ff02::1", "ff05::2",
		// what only the OAuth copy refused
		"100.64.0.1", "100.100.100.200", "100.127.255.255", "0.1.2.3", "192.0.0.1", "192.0.0.192", "198.18.0.1", "198.19.255.255",
		"240.0.0.1", "255.255.255.255", "2001:db8::1",
		// documentation and relays, IPv4 inside IPv6
		"192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::ffff:100.100.100.200", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1", "2002:a9fe:a9fe::1", "2001::1", "::127.0.0.1", "fec0::1",
		"100::1", "3fff::1", "4000::1",
	}
	for _, s := range refused {
		err := Policy{}.CheckAddr(netip.MustParseAddr(s))
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s is allowed (%v)", s, err)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "198.17.255.255", "198.20.0.1",
		"223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001::1", "::ffff:8.8.8.8"} {
		if err := (Policy{}).CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s is refused: %v", s, err)
		}
	}
	// The sentence names the range.
	if err := (Policy{}).CheckAddr(netip.MustParseAddr("100.100.100.200")); err == nil || !strings.Contains(err.Error(), "100.64.0.0/10") {
		t.Errorf("the refusal does not name its range: %v", err)
	}
	// Loopback only when allowed; nothing else with it.
	lo := Policy{AllowLoopback: true}
	for _, s := range []string{"127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"} {
		if err := lo.CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("loopback allowed, %s is refused: %v", s, err)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "0.0.0.0", "::", "100.64.0.1", "fe80::1"} {
		if lo.CheckAddr(netip.MustParseAddr(s)) == nil {
			t.Errorf("loopback allowed, %s is allowed too", s)
		}
	}
	if (Policy{}).CheckAddr(netip.Addr{}) == nil {
		t.Error("the zero address is allowed")
	}
}

func TestCheckURL(t *testing.T) {
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return u
	}
	for _, s := range []string{"https://example.com/x", "https://93.184.216.34/", "https://[2606:4700:4700::1111]:8443/x", "HTTPS://Example.COM/"} {
		if err := (Policy{}).CheckURL(parse(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{
		"http://example.com/", "ftp://example.com/", "javascript:alert(1)", "/relative", "https://user:pw@example.com/", "https://@example.com/",
		"https://127.0.0.1/", "https://[::1]/", "https://localhost/", "https://a.localhost/", "https://10.1.2.3/", "https://169.254.169.254/latest",
		"https://[::ffff:169.254.169.254]/", "https://100.100.100.200/", "https://0.0.0.0/", "https://[fe80::1%25eth0]/", "https://example.com:0/",
		"https://example.com:99999/", "https:///path", "mailto:a@example.com",
	} {
		if err := (Policy{}).CheckURL(parse(s)); !errors.Is(err, ErrRefused) {
			t.Errorf("%s is allowed (%v)", s, err)
		}
	}
	lo := Policy{AllowLoopback: true}
	for _, s := range []string{"http://127.0.0.1:8080/cb", "https://localhost/cb", "http://[::1]/", "https://example.com/"} {
		if err := lo.CheckURL(parse(s)); err != nil {
			t.Errorf("loopback allowed, %s: %v", s, err)
		}
	}
	for _, s := range []string{"http://example.com/", "http://10.0.0.1/", "https://192.168.0.1/"} {
		if lo.CheckURL(parse(s)) == nil {
			t.Errorf("loopback allowed, %s is allowed", s)
		}
	}
	if (Policy{}).CheckURL(nil) == nil {
		t.Error("a nil URL is allowed")
	}
}

// The guard works when the connection is dialled: a name that resolves to
// loopback (as a rebinding name would) is refused, and the server is never
// reached; with loopback allowed the same request goes through.
func TestClientRefusesAtDial(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "inside")
	}))
	defer srv.Close()
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	c := Policy{}.Client(ClientOptions{Timeout: time.Second})
	for _, u := range []string{srv.URL, "http://localhost:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		// c.Get skips CheckURL: this is the dial-time check alone.
		res, err := c.Get(u)
		if err == nil {
			res.Body.Close()
			t.Errorf("%s was reached", u)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v; want the guard's refusal", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the server was reached %d times", hits.Load())
	}
	lo := Policy{AllowLoopback: true}
	res, err := lo.Get(context.Background(), lo.Client(ClientOptions{Timeout: time.Second}), "http://localhost:"+port+"/")
	if err != nil {
		t.Fatalf("loopback allowed: %v", err)
	}
	res.Body.Close()
	if hits.Load() != 1 {
		t.Fatalf("loopback allowed, the server was reached %d times", hits.Load())
	}
}

// A redirect's target is checked before it is followed, and at most
// MaxRedirects are followed; with none allowed the redirect is the answer.
func TestClientRedirects(t *testing.T) {
	var inner atomic.Int32
	target := "http://10.0.0.1/latest/meta-data"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/inner":
			http.Redirect(w, r, target, http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/plain":
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
		default:
			inner.Add(1)
		}
	}))
	defer srv.Close()
	lo := Policy{AllowLoopback: true}
	c := lo.Client(ClientOptions{Timeout: time.Second, MaxRedirects: 3})
	for _, path := range []string{"/inner", "/loop", "/plain"} {
		res, err := lo.Get(context.Background(), c, srv.URL+path)
		if err == nil {
			res.Body.Close()
			t.Errorf("%s: followed", path)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v", path, err)
		}
	}
	none := lo.Client(ClientOptions{Timeout: time.Second})
	res, err := lo.Get(context.Background(), none, srv.URL+"/inner")
	if err != nil || res.StatusCode != http.StatusFound || res.Header.Get("Location") != target {
		t.Fatalf("no redirects: %v %v", res, err)
	}
	res.Body.Close()
	if lo.CheckURL(&url.URL{Scheme: "https", Host: "10.0.0.1"}) == nil {
		t.Fatal("the redirect target is allowed")
	}
}

// FuzzCheckAddr: an address passes only when the standard library calls it
// global unicast and not private or loopback; an IPv4 address and its
// IPv4-mapped form are judged alike; the loopback allowance changes the
// answer for loopback and nothing else.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "8.8.8.8", "100.64.0.1", "::ffff:10.0.0.1", "2606:4700:4700::1111", "64:ff9b::a9fe:a9fe", "fe80::1", "::"} {
		b := netip.MustParseAddr(s).AsSlice()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		addr, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		err := Policy{}.CheckAddr(addr)
		u := addr.Unmap()
		if err == nil && (!u.IsGlobalUnicast() || u.IsPrivate() || u.IsLoopback() || u.IsLinkLocalUnicast()) {
			t.Fatalf("%s passes but is not public", addr)
		}
		if addr.Is4() {
			mapped := netip.AddrFrom16(addr.As16())
			if (Policy{}.CheckAddr(mapped) == nil) != (err == nil) {
				t.Fatalf("%s and %s are judged differently", addr, mapped)
			}
		}
		lo := Policy{AllowLoopback: true}.CheckAddr(addr)
		if u.IsLoopback() && lo != nil {
			t.Fatalf("loopback allowed, %s is refused: %v", addr, lo)
		}
		if !u.IsLoopback() && (lo == nil) != (err == nil) {
			t.Fatalf("the loopback allowance changes the answer for %s", addr)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("%s: %v does not wrap ErrRefused", addr, err)
		}
	})
}

// FuzzCheckURL: a URL that passes is absolute https, without user
// information, and its host is no refused address and not localhost.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/x", "http://127.0.0.1/", "https://[::ffff:a9fe:a9fe]/", "https://user@h/", "https://localhost./",
		"https://0x7f.1/", "https://2130706433/", "https://[::1%25lo]/", "javascript:alert(1)", "https://example.com:65536/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil {
			return
		}
		if (Policy{}).CheckURL(u) != nil {
			return
		}
		if !strings.EqualFold(u.Scheme, "https") || u.User != nil || u.Host == "" {
			t.Fatalf("%q passes", s)
		}
		host := strings.ToLower(u.Hostname())
		if a, err := netip.ParseAddr(host); err == nil && (Policy{}).CheckAddr(a) != nil {
			t.Fatalf("%q passes with a refused address", s)
		}
		if host == "localhost" || strings.HasSuffix(strings.TrimSuffix(host, "."), ".localhost") {
			t.Fatalf("%q passes with a loopback name", s)
		}
	})
}
