package testenv

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPostgresStopStartKeepsPortAndData(t *testing.T) {
	start := time.Now()
	pg := StartPostgres(t)
	t.Logf("cluster created and started in %v", time.Since(start).Round(time.Millisecond))
	if want := "postgres://postgres@127.0.0.1:" + strconv.Itoa(pg.Port()) + "/tfstate?sslmode=disable"; pg.ConnStr() != want {
		t.Errorf("ConnStr = %q, want %q", pg.ConnStr(), want)
	}
	if _, err := pg.Query("CREATE TABLE t (v text); INSERT INTO t VALUES ('kept')"); err != nil {
		t.Fatal(err)
	}

	start = time.Now()
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped in %v", time.Since(start).Round(time.Millisecond))
	if _, err := pg.Query("SELECT 1"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("query on a stopped server: err = %v, want connection refused", err)
	}
	if err := pg.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}

	start = time.Now()
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
	if err := pg.Start(); err == nil {
		t.Error("Start on a running server did not fail")
	}
	if got, err := pg.Query("SELECT v FROM t"); err != nil || got != "kept\n" {
		t.Errorf("after restart: %q, %v; want the row written before the stop", got, err)
	}
}

// A session holding an advisory lock shows in AdvisoryLocks until it ends. Terraform's keys
// include -1 (its workspace creation lock), so the full 64 bits must survive.
func TestPostgresAdvisoryLocks(t *testing.T) {
	pg := StartPostgres(t)
	if locks, err := pg.AdvisoryLocks(); err != nil || len(locks) != 0 {
		t.Fatalf("fresh cluster: locks %v, %v", locks, err)
	}
	var releases []func() error
	for _, key := range []int64{-1, 42, 8589934593} {
		release, err := pg.HoldAdvisoryLock(key)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	if _, err := pg.HoldAdvisoryLock(42); err == nil {
		t.Error("a lock held by another session was taken again")
	}
	locks, err := pg.AdvisoryLocks()
	if err != nil {
		t.Fatal(err)
	}
	var keys []int64
	for _, l := range locks {
		keys = append(keys, l.Key)
		if l.PID == 0 {
			t.Errorf("lock %d without a pid", l.Key)
		}
	}
	if want := []int64{42, 8589934593, -1}; len(keys) != 3 || keys[0] != want[0] || keys[1] != want[1] || keys[2] != want[2] {
		t.Errorf("keys %v, want %v (ordered by classid, objid)", keys, want)
	}

	for _, release := range releases {
		if err := release(); err != nil {
			t.Fatal(err)
		}
	}
	if locks, err := pg.AdvisoryLocks(); err != nil || len(locks) != 0 {
		t.Errorf("after release: locks %v, %v", locks, err)
	}
	if err := releases[0](); err != nil {
		t.Errorf("second release: %v", err)
	}
}

// Stopping the server ends the session holding a lock; releasing it afterwards is no error.
func TestPostgresStopEndsHeldLocks(t *testing.T) {
	pg := StartPostgres(t)
	release, err := pg.HoldAdvisoryLock(7)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Errorf("release after stop: %v", err)
	}
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	if locks, err := pg.AdvisoryLocks(); err != nil || len(locks) != 0 {
		t.Errorf("after restart: locks %v, %v", locks, err)
	}
}

// Close leaves nothing behind: no server on the port, no directory.
func TestPostgresCloseRemovesEverything(t *testing.T) {
	pg := StartPostgres(t)
	pid := pg.cmd.Process.Pid
	start := time.Now()
	if err := pg.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed in %v", time.Since(start).Round(time.Millisecond))
	if _, err := os.Stat(pg.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s: %v, want it removed", pg.Dir(), err)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(pg.Port()), time.Second); err == nil {
		c.Close()
		t.Errorf("port %d still accepts connections", pg.Port())
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("postmaster %d still exists", pid)
	}
	if err := pg.Close(); err != nil { // StartPostgres's cleanup closes it again
		t.Errorf("second Close: %v", err)
	}
}

func TestPostgresMissingSaysHowToInstall(t *testing.T) {
	t.Setenv(PostgresBinEnv, t.TempDir())
	_, err := NewPostgres()
	if !errors.Is(err, ErrNoPostgres) || !strings.Contains(err.Error(), "apt-get install postgresql-15") || !strings.Contains(err.Error(), PostgresBinEnv) {
		t.Errorf("err = %v, want ErrNoPostgres saying how to install it", err)
	}
}
