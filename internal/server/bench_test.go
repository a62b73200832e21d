package server

import (
	"net/http/httptest"
	"os"
	"testing"
)

// BenchmarkHandler measures the whole server chain in process (no socket):
// routing, metrics, and for the lane its limiter, key lookup and audit.
func BenchmarkHandler(b *testing.B) {
	limiters := map[string]string{"memory": ""}
	if u := os.Getenv("PERFORM_TEST_REDIS_URL"); u != "" {
		limiters["redis"] = u
	}
	for name, redisURL := range limiters {
		b.Run("limiter="+name, func(b *testing.B) {
			cfg := testConfig(b)
			cfg.RedisURL = redisURL
			cfg.RateLimitMax = 1 << 30
			s := newServer(b, cfg)
			key := studioKey(b, s.Store(), "bench")
			h := s.Handler()
			for _, path := range []string{"/healthz", "/v1/automation/validate"} {
				b.Run("path="+path, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						req := httptest.NewRequest("GET", path, nil)
						req.Header.Set("Authorization", "Bearer "+key)
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						if rec.Code != 200 {
							b.Fatalf("%s answered %d: %s", path, rec.Code, rec.Body)
						}
					}
				})
			}
		})
	}
}
