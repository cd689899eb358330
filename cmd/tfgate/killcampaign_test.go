package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The kill campaign (make kill-campaign): seeded trials of a slow three-object apply on the
// pg backend, each cut off by one fault — SIGTERM, SIGINT or SIGKILL of tfgate, or an
// immediate shutdown of PostgreSQL — at a seeded moment, then re-run as a user would. Each
// trial is judged on what must never happen; the table is printed at the end and every
// column of failures must be 0. It runs only when asked for (-kill.trials N): each trial
// takes 10–20 seconds of real terraform. The single faults have testscripts of their own
// (pg_apply_kill, pg_apply_crash, pg_apply_crash_push, pg_apply_interrupt).
var (
	campaignTrials = flag.Int("kill.trials", 0, "kill campaign: number of trials (0: the campaign does not run)")
	campaignSeed   = flag.Int64("kill.seed", 1, "kill campaign: seed of the faults and their moments")
)

var campaignFaults = []string{"SIGTERM", "SIGINT", "SIGKILL", "pg-crash"}

// trialResult is what `campaign judge` found in one trial.
type trialResult struct {
	Trial, Fault, At string
	CorruptState     bool // the state in the backend does not read as a state
	CreatedTwice     bool // the re-run created an object that existed (fakecloud: "exists already")
	FalseApplied     bool // a run said "applied" while the state does not hold every object
	Orphans          int  // terraform or provider processes left once everything ended
	LostUnnamed      bool // objects exist that no state holds, and nothing says so
	StateSaved       bool // the state holds every object that exists
	LossNamed        bool // the first run said "state NOT saved" and kept the file
	RerunRefused     bool // the re-run refused (interrupted apply, stale plan)
	RerunApplied     bool
	Note             string
}

var (
	campaignMu      sync.Mutex
	campaignResults []trialResult
)

func TestKillCampaign(t *testing.T) {
	if *campaignTrials <= 0 {
		t.Log("the kill campaign runs with -kill.trials N (make kill-campaign)")
		return
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(*campaignSeed))
	for i := range *campaignTrials {
		fault := campaignFaults[i%len(campaignFaults)]
		obj := []string{"a", "b", "c"}[rng.Intn(3)]
		delay := rng.Intn(1200)
		name := fmt.Sprintf("trial%02d_%s", i+1, strings.ReplaceAll(fault, "-", "_"))
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(trialScript(name, fault, obj, delay)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := scriptDir
	scriptDir = dir
	defer func() { scriptDir = old }()
	// (t.Run returns once every trial, each a parallel subtest, has ended)
	t.Run("trials", TestScripts)
	printCampaign(t)
}

func trialScript(name, fault, obj string, delayMS int) string {
	inject := map[string]string{
		"SIGTERM":  "exec sh -c 'kill -TERM $(cat apply.pid)'",
		"SIGINT":   "exec sh -c 'kill -INT $(cat apply.pid)'",
		"SIGKILL":  "exec sh -c 'kill -KILL $(cat apply.pid)'",
		"pg-crash": "pg crash",
	}[fault]
	restart := ""
	if fault == "pg-crash" {
		restart = "pg start\n"
	}
	src, err := os.ReadFile("testdata/script/pg_apply_kill.txtar")
	if err != nil {
		panic(err)
	}
	files := string(src[strings.Index(string(src), "-- repo/.gitignore --"):])
	return fmt.Sprintf(`# kill campaign %s: %s while %s is being created, %dms in
env TF_CLI_CONFIG_FILE=$FAKECLOUD_TFRC
env FAKECLOUD_ROOT=$WORK/cloud
mkdir cloud
pg start
exec $TFGATE_TERRAFORM -chdir=repo/app init -input=false -no-color -backend=false
initrepo repo
exec git -C repo checkout -q -b change
cp app_v2.tf repo/app/main.tf
exec git -C repo commit -qam 'three slow objects'
github start
github pr 42 repo
github perm bob write
exec tfgate -C repo plan --out $WORK/plans
github review bob 42 APPROVED
github merge 42 repo
exec sh -c 'tfgate -C repo apply --plans $WORK/plans --unsaved-state-dir $WORK/unsaved --state-push-wait 2s > apply1.out 2>&1 & echo $! > apply.pid; wait $!; echo $? > apply1.rc; true' &apply&
waitfile cloud/objects/.%s.sleeping 120s
exec sleep %d.%03d
%s
wait apply
campaign settle
%sexec sh -c 'tfgate -C repo apply --plans $WORK/plans --unsaved-state-dir $WORK/unsaved2 --state-push-wait 2s > apply2.out 2>&1; echo $? > apply2.rc; true'
campaign judge %s %s %s@%dms

%s`, name, fault, obj, delayMS, obj, delayMS/1000, delayMS%1000, inject, restart, name, fault, obj, delayMS, files)
}

// campaign settle | judge TRIAL FAULT AT
func cmdCampaign(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: campaign settle | campaign judge TRIAL FAULT AT")
	}
	work := ts.Getenv("WORK")
	switch args[0] {
	case "settle": // terraform may run on after tfgate is gone: let it end (it saves the state)
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline) && len(TerraformProcs(work)) > 0; {
			time.Sleep(100 * time.Millisecond)
		}
	case "judge":
		if len(args) != 4 {
			ts.Fatalf("usage: campaign judge TRIAL FAULT AT")
		}
		r := judgeTrial(ts, work)
		r.Trial, r.Fault, r.At = args[1], args[2], args[3]
		campaignMu.Lock()
		campaignResults = append(campaignResults, r)
		campaignMu.Unlock()
		ts.Logf("%+v", r)
	default:
		ts.Fatalf("campaign: unknown subcommand %q", args[0])
	}
}

var appliedLine = regexp.MustCompile(`(?m)^\s*[✓]?\s*app +applied`)

func judgeTrial(ts *testscript.TestScript, work string) trialResult {
	var r trialResult
	// processes: give the re-run's terraform a moment to be reaped
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r.Orphans = len(TerraformProcs(work))
		if r.Orphans == 0 || time.Now().After(deadline) {
			break
		}
	}
	c, ok := pgClusters.Load(work)
	if !ok {
		ts.Fatalf("campaign judge: no pg cluster")
	}
	raw, err := c.(*scriptPG).pg.Query(`SELECT data FROM app.states WHERE name = 'default'`)
	ts.Check(err)
	inState := map[string]bool{}
	if strings.TrimSpace(raw) != "" {
		var st struct {
			Resources []struct {
				Instances []struct {
					Attributes struct {
						Name string `json:"name"`
					} `json:"attributes"`
				} `json:"instances"`
			} `json:"resources"`
		}
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			r.CorruptState, r.Note = true, err.Error()
		}
		for _, res := range st.Resources {
			for _, in := range res.Instances {
				inState[in.Attributes.Name] = true
			}
		}
	}
	var exist []string
	missing := false
	for _, o := range []string{"a", "b", "c"} {
		if _, err := os.Stat(filepath.Join(work, "cloud", "objects", o+".json")); err == nil {
			exist = append(exist, o)
			if !inState[o] {
				missing = true
			}
		}
	}
	all := len(exist) == 3 && !missing
	r.StateSaved = !missing
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(work, name)); return string(b) }
	first, second := read("apply1.out"), read("apply2.out")
	kept, _ := filepath.Glob(filepath.Join(work, "unsaved", "*errored.tfstate*"))
	r.LossNamed = strings.Contains(first, "applied, state NOT saved") && len(kept) > 0
	records, _ := c.(*scriptPG).pg.Query(`SELECT name FROM app.states WHERE name LIKE 'tfgate-apply-%'`)
	if missing && !r.LossNamed && strings.TrimSpace(records) == "" {
		r.LostUnnamed = true
	}
	r.CreatedTwice = strings.Contains(second, "exists already")
	r.RerunApplied = appliedLine.MatchString(second)
	r.RerunRefused = strings.Contains(second, "was interrupted: check the state, then re-plan") || strings.Contains(second, "the reviewed plan is stale")
	if (appliedLine.MatchString(first) || r.RerunApplied) && !all {
		r.FalseApplied = true
	}
	return r
}

func printCampaign(t *testing.T) {
	campaignMu.Lock()
	defer campaignMu.Unlock()
	type row struct {
		trials, corrupt, twice, falseApplied, orphans, lostUnnamed, saved, named, refused, reapplied int
	}
	rows := map[string]*row{}
	total := &row{}
	for _, r := range campaignResults {
		for _, w := range []*row{rows[r.Fault], total} {
			if w == nil {
				w = &row{}
				rows[r.Fault] = w
			}
			w.trials++
			w.corrupt += b2i(r.CorruptState)
			w.twice += b2i(r.CreatedTwice)
			w.falseApplied += b2i(r.FalseApplied)
			w.orphans += r.Orphans
			w.lostUnnamed += b2i(r.LostUnnamed)
			w.saved += b2i(r.StateSaved)
			w.named += b2i(r.LossNamed)
			w.refused += b2i(r.RerunRefused)
			w.reapplied += b2i(r.RerunApplied)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kill campaign, seed %d, %d trials\n\n", *campaignSeed, len(campaignResults))
	fmt.Fprintln(&b, "| fault | trials | corrupt state | created twice | false \"applied\" | orphaned processes | state lost, unnamed | state saved | loss named, file kept | re-run refused | re-run applied |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|")
	line := func(name string, w *row) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, w.trials, w.corrupt, w.twice, w.falseApplied, w.orphans, w.lostUnnamed, w.saved, w.named, w.refused, w.reapplied)
	}
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		line(n, rows[n])
	}
	line("all", total)
	fmt.Println(b.String())
	if out := os.Getenv("KILL_CAMPAIGN_OUT"); out != "" {
		os.WriteFile(out, []byte(b.String()), 0o644)
	}
	if total.corrupt+total.twice+total.falseApplied+total.orphans+total.lostUnnamed > 0 {
		t.Errorf("the kill campaign found faults (see the table)")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
