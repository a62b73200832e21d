package main

import (
	"strings"
	"testing"
)

func TestFilter(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA/postgres"}`,
		`{"Action":"output","Package":"p","Test":"TestA/postgres","Output":"    open.go:40: PERFORM_TEST_POSTGRES_URL is not set\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA/postgres"}`,
		`{"Action":"output","Package":"p","Test":"TestShort","Output":"    x_test.go:9: slow; skipped in -short\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestShort"}`,
		`{"Action":"output","Package":"p","Test":"TestRedis","Output":"    r_test.go:3: PERFORM_TEST_REDIS_URL is not set\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestRedis"}`,
		`{"Action":"output","Package":"p","Test":"TestRedisDown","Output":"    down_test.go:3: redis-server is not on PATH (apt-get install redis-server): the Redis outage tests need their own\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestRedisDown"}`,
		`{"Action":"output","Package":"p","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestOK"}`,
		`{"Action":"output","Package":"p","Test":"TestBad","Output":"    bad_test.go:1: boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestBad"}`,
		`{"Action":"output","Package":"p","Output":"PASS\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
		`not json`,
	}, "\n")
	var out strings.Builder
	failed, skipped, err := filter(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !failed {
		t.Error("a failed test was not reported")
	}
	if strings.Join(skipped, ",") != "p TestA/postgres,p TestRedis,p TestRedisDown" {
		t.Errorf("skipped = %v", skipped)
	}
	want := "    bad_test.go:1: boom\nFAIL\tp\t0.1s\nnot json\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}
