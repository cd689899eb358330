package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tfgate/tfgate/internal/testenv"
)

// The PostgreSQL of the scripts: one throwaway cluster per script, started by `pg start`,
// a child of this test process (so it dies with it), stopped and removed at the script's end.
type scriptPG struct {
	pg    *testenv.Postgres
	holds map[int64]func() error // pg hold KEY → its release
}

var pgClusters sync.Map // work dir → *scriptPG

// pg SUBCOMMAND ARGS... runs this script's PostgreSQL 15, for terraform's pg state backend:
//
//	pg start            start it with an empty database tfstate and set PG_CONN_STR, which the
//	                    pg backend reads itself; after `pg stop`, start it again (same port, same data)
//	pg stop             stop it (fast shutdown), as a database host going away
//	pg locks N [WAIT]   exactly N advisory locks are held (terraform holds its workspace's while it
//	                    runs), waiting up to WAIT (a duration) for it; prints the keys
//	pg hold KEY         another session takes advisory lock KEY (a workspace's row id in
//	                    terraform_remote_state.states; -1 while a workspace is created) and keeps it
//	pg release KEY      that session gives it back
//	pg psql SQL         run SQL in database tfstate; its rows (columns joined by |) are the stdout
func cmdPG(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: pg start|stop|crash|locks|hold|release|psql ...")
	}
	if neg && args[0] != "locks" {
		ts.Fatalf("pg %s: unsupported: ! pg %s", args[0], args[0])
	}
	work := ts.Getenv("WORK")
	cluster := func() *scriptPG {
		c, ok := pgClusters.Load(work)
		if !ok {
			ts.Fatalf("pg %s: run `pg start` first", args[0])
		}
		return c.(*scriptPG)
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "start":
		if len(rest) != 0 {
			ts.Fatalf("usage: pg start")
		}
		start := time.Now()
		if c, ok := pgClusters.Load(work); ok {
			ts.Check(c.(*scriptPG).pg.Start())
			ts.Logf("postgres restarted on port %d in %v", c.(*scriptPG).pg.Port(), time.Since(start).Round(time.Millisecond))
			return
		}
		pg, err := testenv.NewPostgres()
		ts.Check(err) // missing binaries too: the error says how to install them
		c := &scriptPG{pg: pg, holds: map[int64]func() error{}}
		pgClusters.Store(work, c)
		ts.Defer(func() {
			pgClusters.Delete(work)
			for _, release := range c.holds {
				release()
			}
			if err := pg.Close(); err != nil {
				ts.Logf("pg: %v", err)
			}
		})
		ts.Setenv("PG_CONN_STR", pg.ConnStr())
		ts.Logf("postgres started on port %d in %v", pg.Port(), time.Since(start).Round(time.Millisecond))
	case "stop":
		if len(rest) != 0 {
			ts.Fatalf("usage: pg stop")
		}
		ts.Check(cluster().pg.Stop())
	case "crash": // immediate shutdown
		if len(rest) != 0 {
			ts.Fatalf("usage: pg crash")
		}
		ts.Check(cluster().pg.Crash())
	case "locks":
		if len(rest) < 1 || len(rest) > 2 {
			ts.Fatalf("usage: pg locks N [WAIT]")
		}
		want, err := strconv.Atoi(rest[0])
		ts.Check(err)
		var wait time.Duration
		if len(rest) == 2 {
			wait, err = time.ParseDuration(rest[1])
			ts.Check(err)
		}
		pg := cluster().pg
		for deadline := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
			locks, err := pg.AdvisoryLocks()
			ts.Check(err)
			keys := make([]string, len(locks))
			for i, l := range locks {
				keys[i] = strconv.FormatInt(l.Key, 10)
			}
			if (len(locks) == want) != neg {
				fmt.Fprintln(ts.Stdout(), strings.Join(keys, "\n"))
				return
			}
			if !time.Now().Before(deadline) {
				ts.Fatalf("%d advisory locks held (%s), want %s%d", len(locks), strings.Join(keys, ", "), map[bool]string{true: "not "}[neg], want)
			}
		}
	case "hold", "release":
		if len(rest) != 1 {
			ts.Fatalf("usage: pg %s KEY", sub)
		}
		key, err := strconv.ParseInt(rest[0], 10, 64)
		ts.Check(err)
		c := cluster()
		if sub == "release" {
			release, ok := c.holds[key]
			if !ok {
				ts.Fatalf("pg release %d: not held by `pg hold`", key)
			}
			delete(c.holds, key)
			ts.Check(release())
			return
		}
		release, err := c.pg.HoldAdvisoryLock(key)
		ts.Check(err)
		c.holds[key] = release
	case "psql":
		if len(rest) != 1 {
			ts.Fatalf("usage: pg psql SQL (quote it)")
		}
		out, err := cluster().pg.Query(rest[0])
		ts.Check(err)
		fmt.Fprint(ts.Stdout(), out)
	default:
		ts.Fatalf("pg: unknown subcommand %q", sub)
	}
}
