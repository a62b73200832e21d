// Package buildinfo says which build of Perform is running, for --version.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is Perform's release version, exact semver: what its MCP
// servers report at initialize and what server.json (the MCP Registry's
// entry) lists; a release changes it.
const Version = "1.0.0"

// String is "NAME VERSION (commit REV, TIME[, modified]; GOVERSION)" from
// what the Go toolchain stamped into the binary. A build from a clone has
// a pseudo-version made from the commit; `go run` may have no commit.
func String(name string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return name + " (no build information; " + runtime.Version() + ")"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var details []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		details = append(details, "commit "+rev[:min(12, len(rev))])
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, t)
	}
	if settings["vcs.modified"] == "true" {
		details = append(details, "modified")
	}
	var b strings.Builder
	b.WriteString(name + " " + version + " (")
	if len(details) > 0 {
		b.WriteString(strings.Join(details, ", ") + "; ")
	}
	b.WriteString(info.GoVersion + ")")
	return b.String()
}
