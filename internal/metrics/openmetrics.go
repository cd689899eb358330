package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteOpenMetrics writes m in the OpenMetrics 1.0 text format: # TYPE, # HELP and # UNIT
// before each family's samples, counters ending in _total, and # EOF last. Every series
// carries command="plan|apply|drift", so that the files of several commands can sit in one
// node-exporter textfile directory without clashing. No sample has a timestamp (the
// Pushgateway refuses them); tfgate_run_timestamp_seconds says when the run ended.
//
// The same text is also valid Prometheus text format 0.0.4, which the textfile collector
// parses (it skips # UNIT and # EOF as comments; counters read as untyped there).
func WriteOpenMetrics(w io.Writer, m Metrics) error {
	bw := bufio.NewWriter(w)
	for _, f := range families(m) {
		if len(f.samples) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n", f.name, f.typ)
		if f.unit != "" {
			fmt.Fprintf(bw, "# UNIT %s %s\n", f.name, f.unit)
		}
		fmt.Fprintf(bw, "# HELP %s %s\n", f.name, escape(f.help))
		suffix := ""
		if f.typ == "counter" {
			suffix = "_total"
		}
		for _, s := range f.samples {
			bw.WriteString(f.name + suffix)
			writeLabels(bw, s.labels)
			bw.WriteString(" " + s.value + "\n")
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

type family struct {
	name, typ, unit, help string
	samples               []sample
}

type sample struct {
	labels []string // name, value, name, value, …
	value  string
}

func (f *family) add(value string, labels ...string) {
	f.samples = append(f.samples, sample{labels: labels, value: value})
}

// families are the metrics, in the order written.
func families(m Metrics) []*family {
	fs := runFamilies(m)
	fs = append(fs, projectFamilies(m)...)
	fs = append(fs, totalFamilies(m)...)
	return append(fs, githubFamilies(m)...)
}

func gauge(name, unit, help string) *family {
	return &family{name: "tfgate_" + name, typ: "gauge", unit: unit, help: help}
}

func counter(name, unit, help string) *family {
	return &family{name: "tfgate_" + name, typ: "counter", unit: unit, help: help}
}

// runFamilies are the whole command's: its wall time, end, exit code and projects by outcome.
func runFamilies(m Metrics) []*family {
	cmd := m.Command
	runDuration := gauge("run_duration_seconds", "seconds", "Wall time of the whole tfgate command.")
	runEnd := gauge("run_timestamp_seconds", "seconds", "When the command finished, in seconds since the Unix epoch.")
	exit := gauge("run_exit_code", "", "Exit code of the command: 0 ok, 1 error, 2 changes or drift, 3 policy denied, 4 gate refused.")
	runProjects := gauge("run_projects", "", "Projects of the run by outcome (ok, failed, interrupted, not_started, refused).")
	if !m.Started.IsZero() && !m.Finished.IsZero() {
		runDuration.add(float(m.DurationSeconds), "command", cmd)
	}
	if !m.Finished.IsZero() {
		runEnd.add(float(float64(m.Finished.UnixMilli())/1000), "command", cmd)
	}
	exit.add(strconv.Itoa(m.ExitCode), "command", cmd)
	o := m.Totals.Outcomes
	for i, n := range []int{o.OK, o.Failed, o.Interrupted, o.NotStarted, o.Refused} {
		runProjects.add(strconv.Itoa(n), "command", cmd, "outcome", string(Outcomes[i]))
	}
	return []*family{runDuration, runEnd, exit, runProjects}
}

// projectFamilies are each project's: its time, phases, outcome, changes, policies and gate.
func projectFamilies(m Metrics) []*family {
	cmd := m.Command
	duration := gauge("project_duration_seconds", "seconds", "Wall time of a project's job, from its start to its result.")
	phase := gauge("project_phase_duration_seconds", "seconds", "Time a project spent in one phase (queued, init, workspace, plan, show, policy, apply).")
	phaseStart := gauge("project_phase_start_seconds", "seconds", "When a project first entered a phase, in seconds from the command's start.")
	outcome := gauge("project_outcome", "", "1 for how the project's job ended (ok, failed, interrupted, not_started, refused), 0 for the others.")
	failedPhase := gauge("project_failed_phase", "", "1 for the phase a failed or interrupted project was in (prepare: before its first phase).")
	resources := gauge("project_resource_changes", "", "Resources the project's plan adds, changes, destroys or replaces (apply: the reviewed plan).")
	drifted := gauge("project_drifted_resources", "", "Objects the project's plan found changed outside Terraform.")
	verdict := gauge("project_policy_verdict", "", "1 for the policies' verdict on the project's plan (pass, warn, deny, error), 0 for the others.")
	gateAllowed := gauge("project_gate_allowed", "", "1 when the approval gate allowed applying the project, else 0.")
	approvals := gauge("project_gate_approvals", "", "Approvals that counted for the project.")
	for _, p := range m.Projects {
		duration.add(float(p.DurationSeconds), "command", cmd, "project", p.Name)
		for _, ph := range p.Phases {
			phase.add(float(ph.Seconds), "command", cmd, "project", p.Name, "phase", ph.Name)
			if ph.Started != nil && !m.Started.IsZero() {
				phaseStart.add(float(seconds(ph.Started.Sub(m.Started))), "command", cmd, "project", p.Name, "phase", ph.Name)
			}
		}
		for _, oc := range Outcomes {
			outcome.add(bit(p.Outcome == oc), "command", cmd, "project", p.Name, "outcome", string(oc))
		}
		if p.FailedPhase != "" {
			failedPhase.add("1", "command", cmd, "project", p.Name, "phase", p.FailedPhase)
		}
		if c := p.Changes; c != nil {
			for _, a := range []struct {
				action string
				n      int
			}{{"add", c.Add}, {"change", c.Change}, {"destroy", c.Destroy}, {"replace", c.Replace}} {
				resources.add(strconv.Itoa(a.n), "command", cmd, "project", p.Name, "action", a.action)
			}
			drifted.add(strconv.Itoa(c.Drift), "command", cmd, "project", p.Name)
		}
		if p.Policy != nil {
			for _, v := range []string{"pass", "warn", "deny", "error"} {
				verdict.add(bit(p.Policy.Verdict == v), "command", cmd, "project", p.Name, "verdict", v)
			}
		}
		if g := p.Gate; g != nil {
			gateAllowed.add(bit(g.Allowed), "command", cmd, "project", p.Name)
			approvals.add(strconv.Itoa(g.Approvals), "command", cmd, "project", p.Name)
		}
	}
	return []*family{duration, phase, phaseStart, outcome, failedPhase, resources, drifted, verdict, gateAllowed, approvals}
}

// totalFamilies count the projects by the policies', drift's and the gate's verdicts.
func totalFamilies(m Metrics) []*family {
	cmd := m.Command
	verdicts := gauge("policy_verdicts", "", "Projects by the policies' verdict on their plan.")
	if pc := m.Totals.Policy; pc != (PolicyCounts{}) {
		for _, v := range []struct {
			verdict string
			n       int
		}{{"pass", pc.Pass}, {"warn", pc.Warn}, {"deny", pc.Deny}, {"error", pc.Error}} {
			verdicts.add(strconv.Itoa(v.n), "command", cmd, "verdict", v.verdict)
		}
	}
	drift := gauge("drift_projects", "", "Projects a drift check found drifted (changed outside Terraform), pending (code not applied) or in sync.")
	if d := m.Totals.Drift; d != nil {
		drift.add(strconv.Itoa(d.Drifted), "command", cmd, "status", "drifted")
		drift.add(strconv.Itoa(d.Pending), "command", cmd, "status", "pending")
		drift.add(strconv.Itoa(d.InSync), "command", cmd, "status", "in_sync")
	}
	gate := gauge("gate_projects", "", "Projects by the approval gate's verdict: allowed, pending (waiting for approvals) or refused.")
	if g := m.Totals.Gate; g != nil {
		gate.add(strconv.Itoa(g.Allowed), "command", cmd, "outcome", "allowed")
		gate.add(strconv.Itoa(g.Pending), "command", cmd, "outcome", "pending")
		gate.add(strconv.Itoa(g.Refused), "command", cmd, "outcome", "refused")
	}
	return []*family{verdicts, drift, gate}
}

// githubFamilies count the command's requests to GitHub, retries and rate-limit waits.
func githubFamilies(m Metrics) []*family {
	cmd := m.Command
	gh := m.GitHub
	calls := counter("github_api_calls", "", "HTTP requests sent to the GitHub API, retries included.")
	calls.add(strconv.FormatInt(gh.Calls, 10), "command", cmd)
	retries := counter("github_retries", "", "GitHub API requests sent again after a 5xx or a rate limit.")
	retries.add(strconv.FormatInt(gh.Retries, 10), "command", cmd)
	waits := counter("github_rate_limit_waits", "", "Waits for a GitHub rate limit to reset before a retry.")
	waits.add(strconv.FormatInt(gh.RateLimitWaits, 10), "command", cmd)
	waited := counter("github_rate_limit_wait_seconds", "seconds", "Time spent waiting for GitHub rate limits.")
	waited.add(float(gh.RateLimitWaitSeconds), "command", cmd)
	return []*family{calls, retries, waits, waited}
}

// writeLabels writes {name="value",…}; values are escaped, names are tfgate's own.
func writeLabels(w *bufio.Writer, kv []string) {
	if len(kv) == 0 {
		return
	}
	w.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(kv[i] + `="` + escape(kv[i+1]) + `"`)
	}
	w.WriteByte('}')
}

// escape makes s a valid escaped-string of both formats: backslash, double quote and line
// feed escaped, invalid UTF-8 replaced. Project names are anyone's text: a name with a
// quote or a newline must not end the label or start a sample of its own.
func escape(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func float(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
