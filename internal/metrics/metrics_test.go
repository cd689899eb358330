package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/tfgate/tfgate/internal/golden"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/tfgate/tfgate/internal/github"
	"github.com/tfgate/tfgate/internal/plan"
	"github.com/tfgate/tfgate/internal/policy"
	"github.com/tfgate/tfgate/internal/report"
)

// golden compares got with testdata/<TestName>.golden (rewritten with -update).
func golden(t *testing.T, got []byte) {
	t.Helper()
	goldenfile.Check(t, goldenfile.Path(t.Name()), got)
}

var (
	started  = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	finished = started.Add(12*time.Second + 345*time.Millisecond)
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func ph(name string, msec int) report.Phase { return report.Phase{Name: name, Duration: ms(msec)} }

// seq gives phases their start times: one after the other, from 100 ms after the run
// started.
func seq(phs ...report.Phase) []report.Phase {
	at := started.Add(ms(100))
	for i := range phs {
		phs[i].Start = at
		at = at.Add(phs[i].Duration)
	}
	return phs
}

// planRun has one project of each outcome a plan can have.
func planRun() (report.Run, map[string][]report.Phase) {
	deny := policy.Result{Verdict: policy.VerdictDeny, Findings: []policy.Finding{
		{Level: policy.LevelDeny, Rule: "deny_destroy", Msg: "no"}, {Level: policy.LevelWarn, Rule: "warn_tags", Msg: "tags"}}}
	pass := policy.Result{Verdict: policy.VerdictPass}
	run := report.Run{Kind: report.KindPlan, Policies: "policies/ in the working tree", Projects: []report.Project{
		{Name: "envs/dev/app", Dir: "envs/dev/app", Workspace: "default", Status: report.StatusPlanned, Duration: ms(2100),
			Changes: &plan.Changes{Summary: plan.Summary{Add: 2, Change: 1}}, Policy: &pass},
		{Name: "envs/prod/db", Dir: "envs/prod/db", Workspace: "default", Status: report.StatusPlanned, Duration: ms(3000),
			Changes: &plan.Changes{Summary: plan.Summary{Destroy: 1, Replace: 1, Drift: 2}}, Policy: &deny},
		{Name: "envs/prod/network", Dir: "envs/prod/network", Workspace: "default", Status: report.StatusFailed, Duration: ms(800), Error: "Error: boom"},
		{Name: "broken", Dir: "broken", Workspace: "default", Status: report.StatusFailed, Duration: ms(1), Error: "main.tf:1: bad"},
		{Name: "slow", Dir: "slow", Workspace: "default", Status: report.StatusInterrupted, Duration: ms(5000)},
		{Name: "later", Dir: "later", Workspace: "default", Status: report.StatusNotStarted},
	}}
	phases := map[string][]report.Phase{
		"envs/dev/app": seq(ph("queued", 100), ph("init", 900), ph("workspace", 100), ph("plan", 700), ph("show", 200), ph("policy", 50)),
		"envs/prod/db": seq(ph("init", 1000), ph("workspace", 100), ph("plan", 1500), ph("show", 300), ph("policy", 60)),
		// Entered init twice (around a wait): summed once.
		"envs/prod/network": seq(ph("init", 300), ph("queued", 100), ph("init", 200), ph("workspace", 100), ph("plan", 90)),
		"slow":              seq(ph("init", 1000), ph("plan", 3900)),
	}
	return run, phases
}

func driftRun() (report.Run, map[string][]report.Phase) {
	return report.Run{Kind: report.KindDrift, Projects: []report.Project{
			{Name: "app", Dir: "app", Workspace: "default", Status: report.StatusDrifted, Duration: ms(1500), Changes: &plan.Changes{Summary: plan.Summary{Change: 1, Drift: 1}}},
			{Name: "core", Dir: "core", Workspace: "default", Status: report.StatusPending, Duration: ms(1200), Changes: &plan.Changes{Summary: plan.Summary{Add: 1}}},
			{Name: "net", Dir: "net", Workspace: "default", Status: report.StatusInSync, Duration: ms(900), Changes: &plan.Changes{}},
		}}, map[string][]report.Phase{
			"app":  seq(ph("init", 500), ph("workspace", 100), ph("plan", 700), ph("show", 150)),
			"core": seq(ph("init", 400), ph("workspace", 100), ph("plan", 500), ph("show", 150)),
			"net":  seq(ph("init", 300), ph("workspace", 100), ph("plan", 400), ph("show", 100)),
		}
}

func applyRun() (report.Run, map[string][]report.Phase) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	approved := []report.Approval{{Login: "alice", At: at, Commit: "abc"}, {Login: "bob", At: at, Commit: "abc"}}
	return report.Run{Kind: report.KindApply, PR: 42, Verdict: &report.Verdict{State: "failure", Description: "1 of 3 projects refused"}, Projects: []report.Project{
			{Name: "core", Dir: "core", Workspace: "default", Status: report.StatusApplied, Duration: ms(4000),
				Gate: &report.Gate{Allowed: true, Approvals: approved}, Apply: &report.Apply{Summary: plan.Summary{Add: 3}}},
			{Name: "app", Dir: "app", Workspace: "default", Status: report.StatusFailed, Duration: ms(2500), Error: "Error: apply failed",
				Gate: &report.Gate{Allowed: true, Approvals: approved[:1]}, Apply: &report.Apply{Summary: plan.Summary{Change: 1}}},
			{Name: "prod", Dir: "prod", Workspace: "default", Status: report.StatusRefused,
				Gate: &report.Gate{Pending: true, Reasons: []report.Reason{{Code: "approvals", Text: "needs 2 approvals", Pending: true}}}, Apply: &report.Apply{Summary: plan.Summary{Destroy: 1}}},
			{Name: "net", Dir: "net", Workspace: "default", Status: report.StatusRefused,
				Gate: &report.Gate{Reasons: []report.Reason{{Code: "stale-inputs", Text: "the plan is stale"}}}},
		}}, map[string][]report.Phase{
			"core": seq(ph("init", 1000), ph("workspace", 100), ph("apply", 2800)),
			"app":  seq(ph("init", 900), ph("workspace", 100), ph("apply", 1400)),
		}
}

var stats = github.Stats{Calls: 9, Retries: 2, RateLimitWaits: 1, RateLimitWait: 1500 * time.Millisecond}

func build(run report.Run, phases map[string][]report.Phase, exit int) Metrics {
	m := FromRun(run, phases, stats).Timed(started, finished)
	m.Version, m.ExitCode = "v1.2.3", exit
	return m
}

func TestFromRun(t *testing.T) {
	run, phases := planRun()
	m := build(run, phases, 1)
	if m.Command != "plan" || m.DurationSeconds != 12.345 || len(m.Projects) != 6 || m.Schema != Schema {
		t.Fatalf("run: %+v", m)
	}
	want := map[string]struct {
		outcome     Outcome
		failedPhase string
	}{
		"envs/dev/app": {OutcomeOK, ""}, "envs/prod/db": {OutcomeOK, ""}, "envs/prod/network": {OutcomeFailed, "plan"},
		"broken": {OutcomeFailed, PhasePrepare}, "slow": {OutcomeInterrupted, "plan"}, "later": {OutcomeNotStarted, ""},
	}
	for _, p := range m.Projects {
		if w := want[p.Name]; p.Outcome != w.outcome || p.FailedPhase != w.failedPhase {
			t.Errorf("%s: outcome %s, failed phase %q; want %s, %q", p.Name, p.Outcome, p.FailedPhase, w.outcome, w.failedPhase)
		}
	}
	net := m.Projects[2]
	at := func(msec int) *time.Time { t := started.Add(ms(msec)); return &t }
	// init: first entered at 100 ms, last left at 700 (300 ms, 100 queued, 200 more).
	wantPhases := []Phase{{"init", 0.5, at(100), at(700)}, {"queued", 0.1, at(400), at(500)},
		{"workspace", 0.1, at(700), at(800)}, {"plan", 0.09, at(800), at(890)}}
	if !reflect.DeepEqual(net.Phases, wantPhases) {
		t.Errorf("phases of a project that entered init twice: %+v, want %+v", net.Phases, wantPhases)
	}
	if m.Projects[5].Phases == nil || len(m.Projects[5].Phases) != 0 {
		t.Errorf("a project without phases has %#v, want an empty list", m.Projects[5].Phases)
	}
	wantTotals := Totals{
		Outcomes: OutcomeCounts{OK: 2, Failed: 2, Interrupted: 1, NotStarted: 1},
		Changes:  Changes{Add: 2, Change: 1, Destroy: 1, Replace: 1, Drift: 2},
		Policy:   PolicyCounts{Pass: 1, Deny: 1},
	}
	if !reflect.DeepEqual(m.Totals, wantTotals) {
		t.Errorf("totals %+v, want %+v", m.Totals, wantTotals)
	}
	if p := m.Projects[1].Policy; p == nil || *p != (Policy{Verdict: "deny", Denies: 1, Warnings: 1}) {
		t.Errorf("policy %+v", p)
	}
	if m.GitHub != (GitHub{Calls: 9, Retries: 2, RateLimitWaits: 1, RateLimitWaitSeconds: 1.5}) {
		t.Errorf("github %+v", m.GitHub)
	}

	drun, dphases := driftRun()
	d := FromRun(drun, dphases, github.Stats{})
	if d.Totals.Drift == nil || *d.Totals.Drift != (DriftCounts{Drifted: 1, Pending: 1, InSync: 1}) || d.Totals.Gate != nil {
		t.Errorf("drift totals %+v", d.Totals)
	}

	arun, aphases := applyRun()
	a := FromRun(arun, aphases, github.Stats{})
	if g := a.Totals.Gate; g == nil || *g != (GateCounts{Verdict: "failure", Allowed: 2, Pending: 1, Refused: 1}) || a.Totals.Drift != nil {
		t.Errorf("gate totals %+v", a.Totals.Gate)
	}
	if c := a.Projects[0].Changes; c == nil || c.Add != 3 {
		t.Errorf("apply changes come from the reviewed plan: %+v", c)
	}
	if g := a.Projects[0].Gate; g == nil || *g != (Gate{Allowed: true, Approvals: 2}) {
		t.Errorf("gate %+v", g)
	}
	if a.Projects[1].FailedPhase != "apply" || a.Totals.Outcomes != (OutcomeCounts{OK: 1, Failed: 1, Refused: 2}) {
		t.Errorf("apply outcomes %+v, failed phase %q", a.Totals.Outcomes, a.Projects[1].FailedPhase)
	}
}

func TestFromRunEmpty(t *testing.T) {
	// A run that stopped before it selected projects still has its numbers.
	m := FromRun(report.Run{Kind: report.KindPlan}, nil, github.Stats{Calls: 2})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"projects": []`) {
		t.Errorf("no projects is an empty list:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteOpenMetrics(&buf, m); err != nil {
		t.Fatal(err)
	}
	fams := parseOpenMetrics(t, buf.Bytes())
	if v := value(t, fams, "tfgate_github_api_calls_total", map[string]string{"command": "plan"}); v != 2 {
		t.Errorf("api calls %v", v)
	}
	if _, ok := fams["tfgate_run_duration_seconds"]; ok {
		t.Error("a run duration without times")
	}
}

var runs = []struct {
	name string
	run  func() (report.Run, map[string][]report.Phase)
	exit int
}{
	{"plan", planRun, 1},
	{"drift", driftRun, 2},
	{"apply", applyRun, 1},
}

func TestWriteJSON(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			run, phases := tt.run()
			m := build(run, phases, tt.exit)
			var buf bytes.Buffer
			if err := WriteJSON(&buf, m); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
			var back Metrics
			dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, m) {
				t.Errorf("JSON does not read back the same:\n got %+v\nwant %+v", back, m)
			}
		})
	}
}

func TestWriteOpenMetrics(t *testing.T) {
	for _, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			run, phases := tt.run()
			var buf bytes.Buffer
			if err := WriteOpenMetrics(&buf, build(run, phases, tt.exit)); err != nil {
				t.Fatal(err)
			}
			golden(t, buf.Bytes())
			fams := parseOpenMetrics(t, buf.Bytes())
			parseText(t, buf.Bytes())
			cmd := map[string]string{"command": tt.name}
			if v := value(t, fams, "tfgate_run_duration_seconds", cmd); v != 12.345 {
				t.Errorf("run duration %v", v)
			}
			if v := value(t, fams, "tfgate_run_exit_code", cmd); v != float64(tt.exit) {
				t.Errorf("exit code %v", v)
			}
			if f := fams["tfgate_github_api_calls_total"]; f.GetType() != dto.MetricType_COUNTER || f.GetMetric()[0].GetCounter().GetValue() != 9 {
				t.Errorf("api calls: %v", f)
			}
			if f := fams["tfgate_github_rate_limit_wait_seconds_total"]; f.GetUnit() != "seconds" || f.GetMetric()[0].GetCounter().GetValue() != 1.5 {
				t.Errorf("rate-limit wait: %v", f)
			}
			if f := fams["tfgate_project_duration_seconds"]; f.GetUnit() != "seconds" || f.GetType() != dto.MetricType_GAUGE {
				t.Errorf("project duration: %v", f)
			}
		})
	}
}

func TestOpenMetricsValues(t *testing.T) {
	run, phases := planRun()
	var buf bytes.Buffer
	if err := WriteOpenMetrics(&buf, build(run, phases, 1)); err != nil {
		t.Fatal(err)
	}
	fams := parseOpenMetrics(t, buf.Bytes())
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"tfgate_project_phase_duration_seconds", map[string]string{"project": "envs/dev/app", "phase": "plan"}, 0.7},
		{"tfgate_project_phase_duration_seconds", map[string]string{"project": "envs/prod/network", "phase": "init"}, 0.5},
		{"tfgate_project_duration_seconds", map[string]string{"project": "slow"}, 5},
		{"tfgate_project_outcome", map[string]string{"project": "slow", "outcome": "interrupted"}, 1},
		{"tfgate_project_outcome", map[string]string{"project": "slow", "outcome": "ok"}, 0},
		{"tfgate_project_failed_phase", map[string]string{"project": "envs/prod/network", "phase": "plan"}, 1},
		{"tfgate_project_failed_phase", map[string]string{"project": "broken", "phase": "prepare"}, 1},
		{"tfgate_project_resource_changes", map[string]string{"project": "envs/prod/db", "action": "replace"}, 1},
		{"tfgate_project_drifted_resources", map[string]string{"project": "envs/prod/db"}, 2},
		{"tfgate_project_policy_verdict", map[string]string{"project": "envs/prod/db", "verdict": "deny"}, 1},
		{"tfgate_policy_verdicts", map[string]string{"verdict": "pass"}, 1},
		{"tfgate_run_projects", map[string]string{"outcome": "failed"}, 2},
		{"tfgate_github_retries_total", nil, 2},
		{"tfgate_github_rate_limit_waits_total", nil, 1},
	}
	for _, c := range checks {
		if got := value(t, fams, c.family, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	if n := len(fams["tfgate_project_failed_phase"].GetMetric()); n != 3 {
		t.Errorf("%d failed phases, want 3 (two failed, one interrupted)", n)
	}
	for _, f := range []string{"tfgate_drift_projects", "tfgate_gate_projects", "tfgate_project_gate_allowed"} {
		if _, ok := fams[f]; ok {
			t.Errorf("a plan run has %s", f)
		}
	}
}

// TestOpenMetricsHostileNames: a project name is anyone's text. Quotes, backslashes and
// newlines must stay inside their label value, and read back as they were.
func TestOpenMetricsHostileNames(t *testing.T) {
	names := []string{
		`quote"d`,
		`back\slash\`,
		"new\nline} 1\ntfgate_run_exit_code{command=\"plan\"} 0",
		`\n literally`,
		"tab\tcr\rend",
		"invalid \xff utf-8",
		`trailing \"`,
		"# EOF",
	}
	var run report.Run
	run.Kind = report.KindPlan
	phases := map[string][]report.Phase{}
	for _, n := range names {
		run.Projects = append(run.Projects, report.Project{Name: n, Dir: n, Status: report.StatusFailed, Duration: ms(10)})
		phases[n] = seq(ph("init", 10))
	}
	var buf bytes.Buffer
	if err := WriteOpenMetrics(&buf, build(run, phases, 1)); err != nil {
		t.Fatal(err)
	}
	golden(t, buf.Bytes())
	fams := parseOpenMetrics(t, buf.Bytes())
	parseText(t, buf.Bytes())
	if v := value(t, fams, "tfgate_run_exit_code", nil); v != 1 {
		t.Errorf("exit code %v: a project name forged a sample", v)
	}
	got := map[string]bool{}
	for _, m := range fams["tfgate_project_duration_seconds"].GetMetric() {
		got[labels(m)["project"]] = true
	}
	for _, n := range names {
		want := strings.ToValidUTF8(n, "\uFFFD")
		if !got[want] {
			t.Errorf("project %q does not read back (got %v)", want, got)
		}
	}
}

// parseOpenMetrics parses the text with expfmt's OpenMetrics 1.0 parser (strict: the ABNF
// of the specification, # EOF required, units must suffix the name, counters need
// _total) and returns the families by name — a counter's with _total, as expfmt names it.
func parseOpenMetrics(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	if !bytes.HasSuffix(text, []byte("\n# EOF\n")) {
		t.Fatalf("does not end with # EOF:\n%s", text)
	}
	dec := expfmt.NewDecoder(bytes.NewReader(text), expfmt.FmtOpenMetrics_1_0_0)
	fams := map[string]*dto.MetricFamily{}
	for {
		var f dto.MetricFamily
		err := dec.Decode(&f)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("OpenMetrics parser: %v\n%s", err, text)
		}
		if _, dup := fams[f.GetName()]; dup {
			t.Fatalf("family %s appears twice", f.GetName())
		}
		if f.GetHelp() == "" {
			t.Errorf("family %s has no HELP", f.GetName())
		}
		for _, m := range f.GetMetric() {
			if labels(m)["command"] == "" {
				t.Errorf("%s%v has no command label", f.GetName(), labels(m))
			}
		}
		fams[f.GetName()] = &f
	}
	return fams
}

// parseText parses the text as Prometheus text format 0.0.4, what the node-exporter
// textfile collector reads: it must accept it too.
func parseText(t *testing.T, text []byte) {
	t.Helper()
	dec := expfmt.NewDecoder(bytes.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
	for {
		var f dto.MetricFamily
		err := dec.Decode(&f)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("text format 0.0.4 parser: %v\n%s", err, text)
		}
	}
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// value is the one sample of family whose labels include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, family string, want map[string]string) float64 {
	t.Helper()
	f, ok := fams[family]
	if !ok {
		t.Fatalf("no family %s", family)
	}
	var found []float64
	for _, m := range f.GetMetric() {
		l := labels(m)
		match := true
		for k, v := range want {
			match = match && l[k] == v
		}
		if !match {
			continue
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			found = append(found, m.GetCounter().GetValue())
		default:
			found = append(found, m.GetGauge().GetValue())
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s%v: %d samples, want 1", family, want, len(found))
	}
	return found[0]
}
