package testenv

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
	psql := exec.Command(filepath.Join(pg.bin, "psql"), "-X", "-q", "-A", "-t", "-d", pg.ConnStr())
	stdin, err := psql.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := psql.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := psql.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "SELECT pg_advisory_lock(-1), pg_advisory_lock(42), pg_advisory_lock(8589934593);\n")
	buf := make([]byte, 64)
	if _, err := stdout.Read(buf); err != nil { // the row: the locks are taken
		t.Fatal(err)
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

	stdin.Close()
	if err := psql.Wait(); err != nil {
		t.Fatal(err)
	}
	// The backend releases the locks as it exits, just after psql does.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		locks, err := pg.AdvisoryLocks()
		if err != nil {
			t.Fatal(err)
		}
		if len(locks) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("locks %v still held 10s after their session ended", locks)
		}
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
