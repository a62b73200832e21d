package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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
	client, err := jobs.NewClient(st, jobs.Config{Workers: workers, Logger: quietLogger()})
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
