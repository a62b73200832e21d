package laneclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/otherwise/perform/internal/laneclient"
)

// The client decodes the lane's envelope with the SDK's parser, not
// encoding/json. Whatever the lane answers, the client must take from it
// what encoding/json would: the same data for an ok answer, the same code
// and sentence for a lane error, and a non-lane answer for anything that is
// neither.
func FuzzEnvelopeAsEncodingJSONReadsIt(f *testing.F) {
	for _, seed := range []string{
		`{"ok":true,"data":{"id":"trn_1","name":"נועה"},"requestId":"req_1"}`,
		`{"ok":true,"data":[1,2,3],"matched":["Noa → trn_1"]}`,
		`{"ok":false,"error":{"code":"NOT_FOUND","message":"No trainee trn_x in this studio."},"requestId":"req_2"}`,
		`{"OK":true,"Data":{"a":"\u003c"}}`,
		`{"ok":true,"data":{"a":1},"ok":false}`,
		`{"ok":true,"data":"\ud800"}`,
		`{"ok":true,"data":{}} trailing`,
		`<html>502</html>`,
		``,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		lane := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(answer)
		})
		c := laneclient.New("http://perform.internal", laneclient.HandlerTransport(lane), "mcp")
		data, err := c.Do(context.Background(), "pf_live_x", laneclient.Request{Method: http.MethodGet, Path: "/x"})

		var want struct {
			OK    bool            `json:"ok"`
			Data  json.RawMessage `json:"data"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(answer, &want) != nil || !want.OK && want.Error == nil {
			var laneErr *laneclient.Error
			if err == nil || errors.As(err, &laneErr) {
				t.Fatalf("%q is no lane answer to encoding/json; the client answered %s, %v", answer, data, err)
			}
			return
		}
		if !want.OK {
			var laneErr *laneclient.Error
			if !errors.As(err, &laneErr) || laneErr.Code != want.Error.Code || laneErr.Message != want.Error.Message {
				t.Fatalf("%q: the client answered %v; encoding/json reads the lane error %+v", answer, err, *want.Error)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: the client answered %v; encoding/json reads data %s", answer, err, want.Data)
		}
		if !bytes.Equal(compact(data), compact(want.Data)) {
			t.Fatalf("%q: the client read data %s; encoding/json reads %s", answer, data, want.Data)
		}
	})
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
