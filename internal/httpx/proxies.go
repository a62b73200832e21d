package httpx

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// TrustedProxies are the load balancers in front of Perform, as address
// prefixes. Behind one, every connection comes from the balancer, so the
// client's address is the one the balancer appends to X-Forwarded-For.
// That header is believed only from a listed proxy: from anyone else it is
// a claim any client can make.
type TrustedProxies []netip.Prefix

// ParseTrustedProxies reads a comma-separated list of IP addresses and
// CIDR prefixes (PERFORM_TRUSTED_PROXIES). Empty is none.
func ParseTrustedProxies(s string) (TrustedProxies, error) {
	var out TrustedProxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix such as 10.0.0.0/8", f)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix such as 10.0.0.0/8", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func (t TrustedProxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr is the address r's client connected from. When the
// connection comes from a trusted proxy, it is the right-most address in
// X-Forwarded-For that is not itself a trusted proxy (each proxy appends
// the address it saw, so entries to the left of it are the client's own
// claims). Otherwise, and when the header holds nothing usable, it is
// r.RemoteAddr.
func (t TrustedProxies) ClientAddr(r *http.Request) string {
	if len(t) == 0 {
		return r.RemoteAddr
	}
	peer, ok := hostAddr(r.RemoteAddr)
	if !ok || !t.trusts(peer) {
		return r.RemoteAddr
	}
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return r.RemoteAddr // a malformed hop: nothing left of it can be placed
			}
			if !t.trusts(a) {
				return a.Unmap().String()
			}
		}
	}
	return r.RemoteAddr
}

// hostAddr is the IP of a host:port (or bare host) address.
func hostAddr(s string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = s
	}
	a, err := netip.ParseAddr(host)
	return a, err == nil
}
