package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// BenchmarkWebhookIntake measures accepted messages per second through the
// real webhook over HTTP: decode, checks, one transaction with the message
// row and its River job. The River client is not started, so nothing else
// competes for the database.
func BenchmarkWebhookIntake(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchIntake(b, storetest.OpenSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchIntake(b, storetest.OpenPostgres(b)) })
}

func benchIntake(b *testing.B, st store.Store) {
	sms := fakes.NewSmartSend()
	defer sms.Close()
	a, err := New(Options{
		Store: st, Lane: newLaneClientForTest(b, st), SmartSendKey: "k", SmartSendURL: sms.URL,
		WebhookSecret: testToken, SecretKey: make([]byte, 32), Logger: quietLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	workers := river.NewWorkers()
	a.Register(workers)
	client, err := jobs.NewClient(st, jobs.Config{Workers: workers, Holding: true, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	a.SetJobs(client)
	srv := newLocalServer(b, a.Webhook())
	url := srv.URL + "/v1/agent/webhook?token=" + testToken
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var n atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"text":"message %d","phone":"9725%08d","conversationId":"c%d"}`, i, i%5000, i%5000)
			resp, err := hc.Post(url, "application/json", bytes.NewBufferString(body))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "msgs/s")
	var stored int64
	if err := st.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM agent_messages`).Scan(&stored); err != nil || stored != n.Load() {
		b.Fatalf("stored %d of %d accepted messages (%v)", stored, n.Load(), err)
	}
}

// BenchmarkCoachReply is how long after the debounce a coach's reply leaves:
// one message, a reply job held until the burst's debounce ends, the turn
// (the coach resolved, the studio key, the model answering at once) and
// the reply sent, measured from the webhook's acceptance to the gateway's.
// It reports the p50 and p99 past the debounce in ms (the aim: under 1,000
// and 3,000). Run it with a fixed count, each iteration waits the debounce:
//
//	go test ./internal/agent -run '^$' -bench CoachReply -benchtime 40x
func BenchmarkCoachReply(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchReply(b, storetest.OpenSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchReply(b, storetest.OpenPostgres(b)) })
}

func benchReply(b *testing.B, st store.Store) {
	const debounce = time.Second
	h := newHarness(b, st, func(o *Options) { o.Debounce = debounce; o.Now = nil })
	studioWithCoach(b, st, "Bench", "Omer", "050-777-0000", time.Now())
	seedHistory(b, h, "+972507770000")
	h.setScript(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("תשובה") })
	var over []time.Duration
	b.ResetTimer()
	for i := range b.N {
		before := len(h.sms.Sent())
		start := time.Now()
		h.send("972507770000", "c", fmt.Sprintf("שאלה %d", i))
		for len(h.sms.Sent()) == before {
			time.Sleep(2 * time.Millisecond)
		}
		over = append(over, time.Since(start)-debounce)
	}
	b.StopTimer()
	slices.Sort(over)
	b.ReportMetric(float64(over[len(over)/2].Milliseconds()), "p50-ms-past-debounce")
	b.ReportMetric(float64(over[len(over)*99/100].Milliseconds()), "p99-ms-past-debounce")
}
