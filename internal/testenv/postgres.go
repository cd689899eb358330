package testenv

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// PostgresBinEnv names the directory holding PostgreSQL 15's initdb, postgres and psql
// when they are not in Debian's and Ubuntu's place, DefaultPostgresBin.
const PostgresBinEnv = "TFGATE_TEST_PGBIN"

// DefaultPostgresBin is where the postgresql-15 package installs the server.
const DefaultPostgresBin = "/usr/lib/postgresql/15/bin"

// ErrNoPostgres: the PostgreSQL server binaries are not installed. StartPostgres skips on it.
var ErrNoPostgres = errors.New("PostgreSQL 15 server binaries not found")

// PostgresDatabase is the database the cluster is created with, the one ConnStr names.
const PostgresDatabase = "tfstate"

// Postgres is a throwaway PostgreSQL cluster for terraform's pg state backend: one
// superuser "postgres" with trust authentication, listening on a free loopback TCP port and
// on a unix socket in its own directory, durability off (fsync, synchronous_commit) for
// speed. The postmaster is this process's child and gets SIGQUIT (immediate shutdown) from
// the kernel if this process dies without stopping it (Linux), so a killed or timed-out test
// binary leaves no server running — only its directory under os.TempDir ("tfgate-pg-*").
type Postgres struct {
	bin  string
	dir  string // data/, the unix socket, postgres.log
	port int
	cred *syscall.Credential // nil: run as ourselves

	mu     sync.Mutex
	cmd    *exec.Cmd     // the running postmaster, nil when stopped
	exited chan struct{} // closed when cmd has exited
}

// StartPostgres starts a cluster that is stopped and removed when tb ends. It skips the
// test when PostgreSQL is not installed, saying how to install it (under make it fails:
// see Missing).
func StartPostgres(tb testing.TB) *Postgres {
	tb.Helper()
	p, err := NewPostgres()
	if errors.Is(err, ErrNoPostgres) {
		Missing(tb, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := p.Close(); err != nil {
			tb.Error(err)
		}
	})
	return p
}

// NewPostgres starts a cluster with database PostgresDatabase; the caller must Close it.
// Running as root, the server runs as the system user postgres (PostgreSQL refuses root).
// An error wrapping ErrNoPostgres means the binaries are missing.
func NewPostgres() (*Postgres, error) {
	bin := os.Getenv(PostgresBinEnv)
	if bin == "" {
		bin = DefaultPostgresBin
	}
	for _, name := range []string{"initdb", "postgres", "psql"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return nil, fmt.Errorf("%w: %v (install them: `apt-get install postgresql-15`, or set $%s to the directory holding initdb, postgres and psql)",
				ErrNoPostgres, err, PostgresBinEnv)
		}
	}
	p := &Postgres{bin: bin}
	if os.Geteuid() == 0 {
		cred, err := postgresUser()
		if err != nil {
			return nil, err
		}
		p.cred = cred
	}
	dir, err := os.MkdirTemp("", "tfgate-pg-")
	if err != nil {
		return nil, err
	}
	p.dir = dir
	if err := p.create(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the PostgreSQL server must run as the user postgres: %w (the postgresql-15 package creates it)", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user postgres: uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user postgres: gid %q: %w", u.Gid, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// create runs initdb, starts the server on a free port (another if that one is taken by
// the time the server binds it) and creates the database.
func (p *Postgres) create() error {
	if p.cred != nil {
		// MkdirTemp made it 0700 for root; the server owns it instead. Every directory
		// above it must be searchable by postgres: os.TempDir (/tmp) is.
		if err := os.Chown(p.dir, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
			return err
		}
	}
	initdb := p.command(filepath.Join(p.bin, "initdb"), "-D", p.dataDir(), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions", "--wal-segsize=1")
	if out, err := initdb.CombinedOutput(); err != nil {
		hint := ""
		if strings.Contains(err.Error()+string(out), "ermission denied") {
			hint = fmt.Sprintf("\n(can the server's user search every directory above %s? set TMPDIR to one it can)", p.dir)
		}
		return fmt.Errorf("initdb in %s: %v\n%s%s", p.dir, err, out, hint)
	}
	var err error
	for range 3 {
		if p.port, err = freePort(); err != nil {
			return err
		}
		if err = p.Start(); err == nil || !strings.Contains(err.Error(), "could not bind") {
			break
		}
	}
	if err != nil {
		return err
	}
	if _, err := p.psql("postgres", "CREATE DATABASE "+PostgresDatabase); err != nil {
		p.Close()
		return err
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port for PostgreSQL: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (p *Postgres) dataDir() string { return filepath.Join(p.dir, "data") }

// socketDir is the server's unix socket directory, quoted for the setting's list syntax;
// "" (TCP only) when a deep $TMPDIR would make the socket's path longer than a socket
// address holds (107 bytes on Linux).
func (p *Postgres) socketDir() string {
	if len(p.dir)+len("/.s.PGSQL.65535") > 107 || strings.ContainsAny(p.dir, `"`) {
		return ""
	}
	return `"` + p.dir + `"`
}

// command runs a server program as the server's user, with an environment of its own.
func (p *Postgres) command(path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = p.dir
	cmd.Env = []string{"PATH=" + p.bin + ":/usr/bin:/bin", "LC_ALL=C", "TZ=UTC"}
	attr := &syscall.SysProcAttr{Credential: p.cred}
	// Pdeathsig exists on Linux only; set by name so that this file builds everywhere.
	// The runtime sets it after the credentials, which would otherwise clear it.
	if f := reflect.ValueOf(attr).Elem().FieldByName("Pdeathsig"); f.IsValid() {
		f.Set(reflect.ValueOf(syscall.SIGQUIT))
	}
	cmd.SysProcAttr = attr
	return cmd
}

// Port is the loopback TCP port the server listens on, the same across Stop and Start.
func (p *Postgres) Port() int { return p.port }

// Dir is the cluster's directory: data/, postgres.log and, unless its path is too long for
// one, the unix socket (psql -h Dir).
func (p *Postgres) Dir() string { return p.dir }

// ConnStr is the libpq URL of the database, for terraform's pg backend (conn_str, or the
// PG_CONN_STR environment variable it reads).
func (p *Postgres) ConnStr() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, PostgresDatabase)
}

// Start starts the server again after Stop, on the same port with the same data. It returns
// once the server accepts connections.
func (p *Postgres) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("postgres on port %d is already running", p.port)
	}
	logPath := filepath.Join(p.dir, "postgres.log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close() // the child has its own descriptor
	logStart, _ := log.Seek(0, io.SeekEnd)
	cmd := p.command(filepath.Join(p.bin, "postgres"), "-D", p.dataDir(),
		"-p", strconv.Itoa(p.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+p.socketDir(),
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=16MB", "-c", "max_connections=30", "-c", "autovacuum=off",
		"-c", "logging_collector=off")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()

	// The postmaster writes "ready" as the eighth line of postmaster.pid once it accepts
	// connections; pg_ctl -w waits for the same line.
	pidFile := filepath.Join(p.dataDir(), "postmaster.pid")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil {
			if lines := strings.Split(string(data), "\n"); len(lines) > 7 && strings.TrimSpace(lines[7]) == "ready" &&
				strings.TrimSpace(lines[0]) == strconv.Itoa(cmd.Process.Pid) {
				break
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("postgres on port %d exited at start (%v):\n%s", p.port, cmd.ProcessState, logSince(logPath, logStart))
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Signal(syscall.SIGQUIT)
			<-exited
			return fmt.Errorf("postgres on port %d not ready within 30s:\n%s", p.port, logSince(logPath, logStart))
		}
	}
	p.cmd, p.exited = cmd, exited
	return nil
}

func logSince(path string, offset int64) string {
	data, _ := os.ReadFile(path)
	if int64(len(data)) >= offset {
		data = data[offset:]
	}
	return string(data)
}

// Stop shuts the server down (fast: sessions are ended, data is kept), as a database host
// going away would. It does nothing when the server is not running.
func (p *Postgres) Stop() error { return p.stop(syscall.SIGINT) }

// Crash stops the server as a crash would (immediate shutdown: sessions are cut, nothing is
// flushed or said goodbye to; the next start recovers from the WAL).
func (p *Postgres) Crash() error { return p.stop(syscall.SIGQUIT) }

// stop sends the postmaster sig (SIGINT fast, SIGQUIT immediate shutdown) and waits for it,
// escalating to SIGKILL after 30s.
func (p *Postgres) stop(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return nil
	}
	cmd, exited := p.cmd, p.exited
	p.cmd, p.exited = nil, nil
	cmd.Process.Signal(sig)
	select {
	case <-exited:
		return nil
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		return fmt.Errorf("postgres on port %d did not stop within 30s of %v; killed", p.port, sig)
	}
}

// Close stops the server (immediate shutdown: nothing is worth keeping) and removes its
// directory.
func (p *Postgres) Close() error {
	err := p.stop(syscall.SIGQUIT)
	if rerr := os.RemoveAll(p.dir); err == nil {
		err = rerr
	}
	return err
}

// Query runs SQL (one or more statements) in the database with psql and returns the rows,
// one a line, columns separated by "|".
func (p *Postgres) Query(sql string) (string, error) {
	return p.psql(PostgresDatabase, sql)
}

// AdvisoryLock is an advisory lock a session holds. Terraform's pg backend locks a
// workspace by the id of its row in terraform_remote_state.states, and takes -1 while it
// creates a workspace.
type AdvisoryLock struct {
	Key int64 // the bigint key given to pg_advisory_lock
	PID int   // the backend process of the session holding it
}

// AdvisoryLocks lists the advisory locks held (granted) across the cluster, by key.
func (p *Postgres) AdvisoryLocks() ([]AdvisoryLock, error) {
	// pg_locks splits a bigint key into classid (high 32 bits) and objid (low 32 bits).
	out, err := p.Query(`SELECT classid, objid, pid FROM pg_locks WHERE locktype = 'advisory' AND granted ORDER BY classid, objid`)
	if err != nil {
		return nil, err
	}
	var locks []AdvisoryLock
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("pg_locks row %q", line)
		}
		hi, err1 := strconv.ParseUint(f[0], 10, 32)
		lo, err2 := strconv.ParseUint(f[1], 10, 32)
		pid, err3 := strconv.Atoi(f[2])
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("pg_locks row %q: %w", line, err)
		}
		locks = append(locks, AdvisoryLock{Key: int64(hi<<32 | lo), PID: pid})
	}
	return locks, nil
}

// HoldAdvisoryLock takes advisory lock key in a session of its own, as another terraform
// run holding the workspace would, and keeps it until release is called or the server stops.
func (p *Postgres) HoldAdvisoryLock(key int64) (release func() error, err error) {
	cmd := exec.Command(filepath.Join(p.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", p.ConnStr())
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// psql prints each row as its statement completes; the session then waits on stdin.
	answers := bufio.NewReader(stdout)
	ask := func(sql string) string {
		fmt.Fprintln(stdin, sql)
		line, _ := answers.ReadString('\n')
		return strings.TrimSpace(line)
	}
	if got := ask(fmt.Sprintf("SELECT pg_try_advisory_lock(%d);", key)); got != "t" {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("advisory lock %d on port %d: got %q, want t (held elsewhere?) %s", key, p.port, got, strings.TrimSpace(stderr.String()))
	}
	release = sync.OnceValue(func() error {
		unlocked := ask(fmt.Sprintf("SELECT pg_advisory_unlock(%d);", key)) == "t"
		stdin.Close()
		err := cmd.Wait()
		p.mu.Lock()
		running := p.cmd != nil
		p.mu.Unlock()
		if unlocked || !running { // a stopped server ended the session, and its lock
			return nil
		}
		return fmt.Errorf("release advisory lock %d: psql: %v: %s", key, err, strings.TrimSpace(stderr.String()))
	})
	return release, nil
}

// psql runs as this process's user over TCP: trust authentication lets it be postgres.
func (p *Postgres) psql(db, sql string) (string, error) {
	cmd := exec.Command(filepath.Join(p.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-d", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=5", p.port, db),
		"-c", sql)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "PGTZ=UTC"}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("psql %q on port %d: %v: %s", sql, p.port, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
