package auth

import (
	"slices"
	"strings"
	"testing"
)

func TestParseScopes(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                      StudioScopes,
		"studio:write,studio:read":              {ScopeStudioRead, ScopeStudioWrite},
		" studio:admin  studio:admin ,":         {ScopeStudioAdmin},
		"studio:read studio:write,studio:admin": {ScopeStudioRead, ScopeStudioWrite, ScopeStudioAdmin},
		"billing studio:read":                   {ScopeStudioRead, ScopeBilling},
		"studio:admin,billing,studio:write,studio:read": StudioScopes,
	} {
		got, err := ParseScopes(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseScopes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseScopes("studio:read,training:read"); err == nil || !strings.Contains(err.Error(), `"training:read" is not a scope`) {
		t.Errorf("an unknown scope: %v", err)
	}
	got, _ := ParseScopes("")
	got[0] = "changed"
	if DefaultKeyScopes[0] != ScopeStudioRead {
		t.Fatal("the default was handed out without a copy")
	}
}

func TestPrincipalHas(t *testing.T) {
	p := &Principal{Scopes: AssistantScopes}
	if !p.Has(ScopeStudioRead) || !p.Has(ScopeStudioWrite) || !p.Has(ScopeBilling) || p.Has(ScopeStudioAdmin) {
		t.Errorf("the assistant's scopes: %v", p.Scopes)
	}
}

// FuzzParseScopes: whatever the input, the answer is a refusal or a list of
// known scopes in display order, each once, and parsing it again gives it back.
func FuzzParseScopes(f *testing.F) {
	for _, s := range []string{"", "studio:read", "studio:read,studio:write", "studio:admin studio:admin", ",,", "studio:root", "studio:read,\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseScopes(in)
		if err != nil {
			if !strings.Contains(err.Error(), "is not a scope") {
				t.Fatalf("ParseScopes(%q): %v", in, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("ParseScopes(%q) gave no scopes", in)
		}
		last := -1
		for _, s := range got {
			i := slices.Index(StudioScopes, s)
			if i <= last {
				t.Fatalf("ParseScopes(%q) = %v: unknown, repeated or out of order", in, got)
			}
			last = i
		}
		again, err := ParseScopes(strings.Join(got, ","))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("ParseScopes(%q) = %v, but again %v, %v", in, got, again, err)
		}
	})
}

// A key's scopes change by a whole new list or by what it gains and loses;
// every scope named is checked, the answer is in display order, and a
// change that would leave the key nothing is refused.
func TestScopeChangeApply(t *testing.T) {
	old := []string{ScopeStudioRead, ScopeStudioWrite} // a key made before billing
	for name, tc := range map[string]struct {
		change ScopeChange
		want   []string
	}{
		"add billing":          {ScopeChange{Add: []string{ScopeBilling}}, []string{ScopeStudioRead, ScopeStudioWrite, ScopeBilling}},
		"add what it has":      {ScopeChange{Add: []string{ScopeStudioRead}}, old},
		"remove write":         {ScopeChange{Remove: []string{ScopeStudioWrite}}, []string{ScopeStudioRead}},
		"remove what it lacks": {ScopeChange{Remove: []string{ScopeStudioAdmin}}, old},
		"add and remove":       {ScopeChange{Add: []string{ScopeBilling, ScopeStudioAdmin}, Remove: []string{ScopeStudioWrite}}, []string{ScopeStudioRead, ScopeStudioAdmin, ScopeBilling}},
		"set":                  {ScopeChange{Set: []string{ScopeBilling, ScopeStudioRead, ScopeBilling}}, []string{ScopeStudioRead, ScopeBilling}},
	} {
		got, err := tc.change.Apply(old)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, tc.want)
		}
	}
	for name, tc := range map[string]struct {
		change ScopeChange
		says   string
	}{
		"nothing":         {ScopeChange{}, "name the scopes"},
		"set and add":     {ScopeChange{Set: []string{ScopeStudioRead}, Add: []string{ScopeBilling}}, "not both"},
		"unknown added":   {ScopeChange{Add: []string{"billing:write"}}, `"billing:write" is not a scope`},
		"unknown removed": {ScopeChange{Remove: []string{"studio:root"}}, `"studio:root" is not a scope`},
		"unknown set":     {ScopeChange{Set: []string{ScopeStudioRead, "profile:read"}}, `"profile:read" is not a scope`},
		"both ways":       {ScopeChange{Add: []string{ScopeBilling}, Remove: []string{ScopeBilling}}, "both added and removed"},
		"none left":       {ScopeChange{Remove: []string{ScopeStudioRead, ScopeStudioWrite}}, "revoke it"},
	} {
		if got, err := tc.change.Apply(old); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, %v; want a refusal saying %q", name, got, err, tc.says)
		}
	}
	if !slices.Equal(old, []string{ScopeStudioRead, ScopeStudioWrite}) {
		t.Fatalf("Apply changed the list it was given: %v", old)
	}
}
