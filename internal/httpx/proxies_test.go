package httpx

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestTrustedProxiesClientAddr(t *testing.T) {
	trusted, err := ParseTrustedProxies(" 10.0.0.0/8, 127.0.0.1 ,::1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"no proxies header from a proxy", "10.1.2.3:5000", nil, "10.1.2.3:5000"},
		{"one hop", "10.1.2.3:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"client claims are left of the proxy's entry", "127.0.0.1:41000", []string{"1.1.1.1, 203.0.113.7"}, "203.0.113.7"},
		{"chained proxies are skipped", "10.1.2.3:5000", []string{"203.0.113.7, 10.9.9.9"}, "203.0.113.7"},
		{"several header lines", "10.1.2.3:5000", []string{"1.1.1.1", "203.0.113.7"}, "203.0.113.7"},
		{"header from an untrusted peer is ignored", "198.51.100.4:6000", []string{"203.0.113.7"}, "198.51.100.4:6000"},
		{"malformed hop falls back to the peer", "10.1.2.3:5000", []string{"not-an-ip"}, "10.1.2.3:5000"},
		{"only proxies in the chain", "10.1.2.3:5000", []string{"10.4.4.4"}, "10.1.2.3:5000"},
		{"ipv6 loopback proxy", "[::1]:7000", []string{"2001:db8::5"}, "2001:db8::5"},
		{"mapped ipv4", "10.1.2.3:5000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
	}
	for _, c := range cases {
		r, _ := http.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := trusted.ClientAddr(r); got != c.want {
			t.Errorf("%s: ClientAddr = %q, want %q", c.name, got, c.want)
		}
	}
	var none TrustedProxies
	r, _ := http.NewRequest("GET", "/", nil)
	r.RemoteAddr, r.Header["X-Forwarded-For"] = "127.0.0.1:1", []string{"203.0.113.7"}
	if got := none.ClientAddr(r); got != "127.0.0.1:1" {
		t.Errorf("with no trusted proxies the header was believed: %q", got)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1:80", "1.2.3"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	got, err := ParseTrustedProxies("10.1.2.3/8,,192.0.2.1")
	if err != nil || len(got) != 2 || got[0] != netip.MustParsePrefix("10.0.0.0/8") || got[1] != netip.MustParsePrefix("192.0.2.1/32") {
		t.Fatalf("parsed %v, %v", got, err)
	}
}

// FuzzTrustedProxiesClientAddr: any header and peer give an address that
// is the peer or one of the header's entries, and never panic.
func FuzzTrustedProxiesClientAddr(f *testing.F) {
	f.Add("10.0.0.0/8,127.0.0.1", "127.0.0.1:5000", "203.0.113.7, 10.0.0.2")
	f.Add("::1", "[::1]:80", "2001:db8::1")
	f.Add("", "1.2.3.4:5", "garbage,,")
	f.Add("0.0.0.0/0", "9.9.9.9:1", "1.1.1.1,2.2.2.2")
	f.Fuzz(func(t *testing.T, proxies, remote, xff string) {
		trusted, err := ParseTrustedProxies(proxies)
		if err != nil {
			return
		}
		r, _ := http.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		got := trusted.ClientAddr(r)
		if got == remote {
			return
		}
		a, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("ClientAddr %q is neither the peer %q nor an address", got, remote)
		}
		if trusted.trusts(a) {
			t.Fatalf("ClientAddr %q is a trusted proxy", got)
		}
	})
}
