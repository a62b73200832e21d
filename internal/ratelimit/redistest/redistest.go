// Package redistest runs a private redis-server for a test, on a free port
// of 127.0.0.1, so the test may kill it, freeze it and start it again
// without touching the Redis other tests share.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one redis-server process (or none, between Kill and Start).
type Server struct {
	t    testing.TB
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start runs redis-server (from PATH) on a free port, without persistence,
// and waits until it answers; it is killed when the test ends. The test
// is skipped when redis-server is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH (apt-get install redis-server): the Redis outage tests need their own")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{t: t, port: port}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// URL is the redis:// URL of database db of the server.
func (s *Server) URL(db int) string {
	return fmt.Sprintf("redis://127.0.0.1:%d/%d", s.port, db)
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Kill ends the server at once (SIGKILL) and waits for it to exit.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a frozen process must run to die
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Freeze stops the process (SIGSTOP): connections stay open and nothing
// answers, as with a Redis that hangs. Thaw resumes it.
func (s *Server) Freeze() { s.signal(syscall.SIGSTOP) }

// Thaw resumes a frozen server (SIGCONT).
func (s *Server) Thaw() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// Restart starts the server again on the same port (empty: it keeps
// nothing) and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no")
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on port %d did not answer within 10 s: %v", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
