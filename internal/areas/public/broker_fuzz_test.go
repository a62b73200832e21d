package public

import (
	"net"
	"strings"
	"testing"
)

func TestCheckCallback(t *testing.T) {
	hosts := []string{"api.perfox.example", "hooks.perfox.example:8443"}
	for raw, want := range map[string]string{
		"https://api.perfox.example/conversations/c1/auth-context":     "",
		"https://API.perfox.example:443/conversations/c1/auth-context": "",
		"https://hooks.perfox.example:8443/x":                          "",
		"":                                                             refusedNoCallback,
		"http://api.perfox.example/x":                                  refusedNotHTTPS,
		"https://api.perfox.example:8443/x":                            refusedHostNotList,
		"https://hooks.perfox.example/x":                               refusedHostNotList,
		"https://evil.example/x":                                       refusedHostNotList,
		"https://api.perfox.example.evil.example/x":                    refusedHostNotList,
		"https://user:pw@api.perfox.example/x":                         refusedBadURL,
		"/conversations/c1/auth-context":                               refusedBadURL,
		"https://api.perfox.example:99999/x":                           refusedBadURL,
		"http://127.0.0.1:8080/x":                                      refusedNotHTTPS,
		"https://127.0.0.1/x":                                          refusedHostNotList,
		"mailto:x@api.perfox.example":                                  refusedBadURL,
	} {
		_, r := checkCallback(raw, hosts, false)
		if got := reasonOf(r); got != want {
			t.Errorf("%q: %q, want %q", raw, got, want)
		}
	}
	if _, r := checkCallback("http://127.0.0.1:8080/x", nil, true); r != nil {
		t.Errorf("loopback with the test setting: %v", r)
	}
	if _, r := checkCallback("http://10.0.0.1/x", nil, true); reasonOf(r) != refusedNotHTTPS {
		t.Errorf("a private address with the loopback setting: %v", r)
	}
}

func reasonOf(r *callbackRefusal) string {
	if r == nil {
		return ""
	}
	return r.reason
}

// FuzzCheckCallback: a URL checkCallback accepts is https to a listed
// host on its port (or, with the test setting, loopback), without
// credentials.
func FuzzCheckCallback(f *testing.F) {
	for _, s := range []string{"https://api.perfox.example/c/1/auth-context", "https://api.perfox.example:443/", "https://a@api.perfox.example/", "http://api.perfox.example/",
		"https://api.perfox.example%00.evil/", "https://[::1]/", "https://api.perfox.example.:443/", "HTTPS://API.PERFOX.EXAMPLE/x", "https://api.perfox.example#@evil/", "//api.perfox.example/x"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, loopback bool) {
		u, r := checkCallback(raw, []string{"api.perfox.example"}, loopback)
		if r != nil {
			if u != nil || r.reason == "" || r.sentence == "" {
				t.Fatalf("a refusal without its reason: %q %+v", raw, r)
			}
			return
		}
		if u.User != nil {
			t.Fatalf("accepted credentials: %q", raw)
		}
		host := strings.ToLower(u.Hostname())
		if loopback && loopbackHost(host) {
			return
		}
		if !strings.EqualFold(u.Scheme, "https") || host != "api.perfox.example" || u.Port() != "" && u.Port() != "443" {
			t.Fatalf("accepted %q (host %q port %q)", raw, host, u.Port())
		}
		if ip := net.ParseIP(host); ip != nil {
			t.Fatalf("accepted an address: %q", raw)
		}
	})
}

// FuzzTraineeTokenWellFormed: only a fresh token's shape passes.
func FuzzTraineeTokenWellFormed(f *testing.F) {
	f.Add(newTraineeToken())
	f.Add(TraineeTokenPrefix)
	f.Add(TraineeTokenPrefix + strings.Repeat("A", 43))
	f.Add(TraineeTokenPrefix + strings.Repeat("+", 43))
	f.Add("pf_live_" + strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, s string) {
		if traineeTokenWellFormed(s) && (len(s) != len(TraineeTokenPrefix)+43 || !strings.HasPrefix(s, TraineeTokenPrefix) || strings.ContainsAny(s[len(TraineeTokenPrefix):], "+/= \x00")) {
			t.Fatalf("accepted %q", s)
		}
	})
	if !traineeTokenWellFormed(newTraineeToken()) {
		f.Fatal("a fresh token is not well formed")
	}
}
