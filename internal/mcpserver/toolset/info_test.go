package toolset_test

import (
	"testing"

	"github.com/otherwise/perform/internal/buildinfo"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// initialize's server info names the release, and with the server's URL
// its icon (a PNG at IconPath) and its website; without one, neither.
func TestServerInfoNamesTheIconAndTheSite(t *testing.T) {
	client := laneclient.New("http://127.0.0.1:1", nil, "mcp") // initialize reaches no lane
	for _, opts := range []toolset.Options{
		{Client: client, APIKey: "pf_live_x", SiteURL: "https://perform.example"},
		{Client: client, APIKey: "pf_live_x", SiteURL: "https://perform.example", Trainee: true},
		{Client: client, APIKey: "pf_live_x", SiteURL: "https://perform.example", Platform: true},
	} {
		info := connect(t, opts).InitializeResult().ServerInfo
		if info.Name != "perform" || info.Title != "Perform" || info.Version != buildinfo.Version || info.WebsiteURL != "https://perform.example" {
			t.Errorf("server info %+v", info)
		}
		if len(info.Icons) != 1 || info.Icons[0].Source != "https://perform.example/icon.png" || info.Icons[0].MIMEType != "image/png" ||
			len(info.Icons[0].Sizes) != 1 || info.Icons[0].Sizes[0] != "256x256" {
			t.Errorf("icons %+v", info.Icons)
		}
	}
	info := connect(t, toolset.Options{Client: client, APIKey: "pf_live_x"}).InitializeResult().ServerInfo
	if info.WebsiteURL != "" || len(info.Icons) != 0 || info.Version != buildinfo.Version {
		t.Errorf("without a site URL: %+v", info)
	}
}
