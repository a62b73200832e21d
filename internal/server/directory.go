package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/lane"
)

// Paths the directories read: the server's icon (named in the MCP server
// info, see toolset.IconPath) and the ChatGPT apps directory's domain
// challenge.
const (
	IconPath                = "/icon.png"
	OpenAIAppsChallengePath = "/.well-known/openai-apps-challenge"
)

// icon is Perform's mark: a 256×256 PNG, a white P on a blue rounded
// square with an amber dot.
//
//go:embed static/icon.png
var icon []byte

var iconETag = func() string {
	sum := sha256.Sum256(icon)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// serveIcon answers the icon, cached for a day by browsers and proxies
// and revalidated by its ETag (If-None-Match answers 304).
func serveIcon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("ETag", iconETag)
	http.ServeContent(w, r, "icon.png", time.Time{}, bytes.NewReader(icon))
}

// openAIAppsChallenge answers PERFORM_OPENAI_APPS_CHALLENGE as plain text,
// or 404 as any unknown path when it is unset.
func (s *Server) openAIAppsChallenge(w http.ResponseWriter, r *http.Request) {
	token := s.cfg.OpenAIAppsChallenge
	if token == "" {
		_ = httpx.WriteError(w, http.StatusNotFound, httpx.ErrorBody{Code: lane.CodeNotFound, Message: lane.NotFoundMessage(r)}, 0, "")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(token))
}
