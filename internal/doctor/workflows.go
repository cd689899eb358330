package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// workflowDir is where GitHub reads workflows from.
const workflowDir = ".github/workflows"

type workflow struct {
	file     string // root-relative slash path
	triggers map[string]bool
	jobs     []job
	err      error // the file does not parse
}

type job struct {
	name     string
	perms    perms
	commands []string // tfgate commands its steps run
}

// perms is a permissions block: unset, "read-all"/"write-all"/{} or scopes.
type perms struct {
	set    bool
	all    string // level of every scope when the block is a string ("read", "write"; {} = "none")
	scopes map[string]string
}

func (p perms) level(scope string) string {
	if p.scopes != nil {
		if l, ok := p.scopes[scope]; ok {
			return l
		}
		return "none"
	}
	return p.all
}

type workflows struct {
	files  []workflow
	dirErr error
}

// triggered reports whether a workflow running the tfgate command cmd runs on event.
func (w workflows) triggered(cmd, event string) bool {
	_, ok := w.find(cmd, event)
	return ok
}

func (w workflows) find(cmd string, events ...string) (string, bool) {
	for _, f := range w.files {
		for _, e := range events {
			if !f.triggers[e] {
				continue
			}
			for _, j := range f.jobs {
				if contains(j.commands, cmd) {
					return f.file, true
				}
			}
		}
	}
	return "", false
}

// runCommand finds tfgate commands in run: scripts ("$TFGATE" plan …, tfgate apply …).
var runCommand = regexp.MustCompile(`(?:\btfgate|\$\{?TFGATE\}?)"?\s+(plan|publish|gate|apply|drift)\b`)

func readWorkflows(root string) workflows {
	var w workflows
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(workflowDir)))
	if err != nil {
		w.dirErr = err
		return w
	}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".yaml")) {
			continue
		}
		rel := workflowDir + "/" + e.Name()
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err == nil {
			w.files = append(w.files, parseWorkflow(rel, data))
		} else {
			w.files = append(w.files, workflow{file: rel, err: err})
		}
	}
	return w
}

func parseWorkflow(file string, data []byte) workflow {
	wf := workflow{file: file, triggers: map[string]bool{}}
	var doc struct {
		On          yaml.Node `yaml:"on"`
		Permissions yaml.Node `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions yaml.Node `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		wf.err = err
		return wf
	}
	readTriggers(&doc.On, wf.triggers)
	top := readPerms(&doc.Permissions)
	names := make([]string, 0, len(doc.Jobs))
	for n := range doc.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		j := doc.Jobs[n]
		jb := job{name: n, perms: readPerms(&j.Permissions)}
		if !jb.perms.set {
			jb.perms = top
		}
		for _, s := range j.Steps {
			if isTfgateAction(s.Uses) {
				cmd := s.With["command"]
				if cmd == "" {
					cmd = "plan" // the action's default
				}
				jb.commands = append(jb.commands, strings.Fields(cmd)[0])
			}
			for _, m := range runCommand.FindAllStringSubmatch(s.Run, -1) {
				jb.commands = append(jb.commands, m[1])
			}
			if strings.Contains(s.With["args"]+" "+s.Run, "--fold-back-pr") && contains(jb.commands, "drift") {
				jb.commands = append(jb.commands, foldBackPR) // its own permissions (need)
			}
		}
		wf.jobs = append(wf.jobs, jb)
	}
	return wf
}

// readTriggers puts the events of a workflow's `on:` in triggers: a name, a list of names,
// or a mapping of names to their filters.
func readTriggers(on *yaml.Node, triggers map[string]bool) {
	switch on.Kind {
	case yaml.ScalarNode:
		triggers[on.Value] = true
	case yaml.SequenceNode:
		for _, n := range on.Content {
			triggers[n.Value] = true
		}
	case yaml.MappingNode:
		for i := 0; i < len(on.Content); i += 2 {
			triggers[on.Content[i].Value] = true
		}
	}
}

// isTfgateAction: tfgate/tfgate@REF, or the action of tfgate's own repository (./).
func isTfgateAction(uses string) bool {
	name, _, _ := strings.Cut(uses, "@")
	return strings.EqualFold(name, "tfgate/tfgate") || uses == "./"
}

func readPerms(n *yaml.Node) perms {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Value {
		case "read-all":
			return perms{set: true, all: "read"}
		case "write-all":
			return perms{set: true, all: "write"}
		}
		return perms{set: true, all: "none"}
	case yaml.MappingNode:
		p := perms{set: true, scopes: map[string]string{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.scopes[n.Content[i].Value] = n.Content[i+1].Value
		}
		return p
	}
	return perms{}
}

// need is what each command's job must be allowed (tfgate's example workflows).
var need = map[string][]string{
	"plan":    {"contents: read", "pull-requests: write", "statuses: write"},
	"publish": {"contents: read", "pull-requests: write", "statuses: write"},
	"gate":    {"contents: read", "pull-requests: write", "statuses: write", "actions: read"},
	"apply":   {"contents: read", "pull-requests: write", "statuses: write", "actions: read", "issues: write"},
	"drift":   {"contents: read", "issues: write"},
	// tfgate drift --fold-back-pr writes a branch and opens pull requests.
	foldBackPR: {"contents: write", "pull-requests: write", "issues: write"},
}

const foldBackPR = "drift --fold-back-pr"

func allows(have, want string) bool {
	return have == want || (have == "write" && want == "read")
}

// checkWorkflows: a plan on pull requests, a gate on reviews and an apply on pushes
// (essential), drift (not), the permissions each job needs, and actionlint.
func checkWorkflows(o Options, w workflows) []Finding {
	present := Finding{Check: "workflows", Essential: true}
	var found, missing, broken []string
	for _, f := range w.files {
		if f.err != nil {
			broken = append(broken, fmt.Sprintf("%s does not parse: %v", f.file, f.err))
		}
	}
	for _, want := range []struct {
		cmds   []string
		events []string
		what   string
		file   string
	}{
		{[]string{"plan", "publish"}, []string{"pull_request", "pull_request_target"}, "tfgate plan on pull requests", "plan.yml"},
		{[]string{"gate"}, []string{"pull_request_review"}, "tfgate gate on reviews", "gate.yml"},
		{[]string{"apply"}, []string{"push"}, "tfgate apply on pushes", "apply.yml"},
	} {
		file, ok := "", false
		for _, c := range want.cmds {
			if file, ok = w.find(c, want.events...); ok {
				break
			}
		}
		if ok {
			found = append(found, want.what+" ("+file+")")
		} else {
			missing = append(missing, want.what+" (examples/workflows/"+want.file+")")
		}
	}
	switch {
	case len(missing) > 0:
		present.Status = Fail
		present.Message = "no workflow runs " + strings.Join(missing, ", ")
		if w.dirErr != nil {
			present.Message = "no workflows in " + workflowDir + ": every tfgate workflow is missing"
		}
		present.Fix = "run `tfgate init` (it writes the missing workflows; --force replaces existing ones), or copy them from tfgate's examples/workflows"
	default:
		present.Status, present.Message = OK, strings.Join(found, ", ")
	}
	if len(broken) > 0 {
		present.Message += "\n" + strings.Join(broken, "\n")
	}
	out := []Finding{present}

	if file, ok := w.find("drift", "schedule", "workflow_dispatch"); ok {
		out = append(out, Finding{Check: "drift", Status: OK, Message: "tfgate drift on a schedule (" + file + ")"})
	} else if w.dirErr == nil {
		out = append(out, Finding{Check: "drift", Status: Warn, Message: "no workflow runs tfgate drift on a schedule: drift goes unnoticed",
			Fix: "copy tfgate's examples/workflows/drift.yml to " + workflowDir + "/ (tfgate init writes it)"})
	}

	var gaps []string
	for _, f := range w.files {
		for _, j := range f.jobs {
			seen := map[string]bool{}
			for _, c := range j.commands {
				for _, n := range need[c] {
					scope, level, _ := strings.Cut(n, ": ")
					if seen[n] {
						continue
					}
					seen[n] = true
					if !j.perms.set {
						gaps = append(gaps, fmt.Sprintf("%s job %s (tfgate %s) sets no permissions: the token gets the repository's default, read-only in newer repositories", f.file, j.name, c))
						break
					}
					if !allows(j.perms.level(scope), level) {
						gaps = append(gaps, fmt.Sprintf("%s job %s (tfgate %s) needs %s, has %s", f.file, j.name, c, n, j.perms.level(scope)))
					}
				}
			}
		}
	}
	if len(gaps) == 0 && len(found) > 0 {
		out = append(out, Finding{Check: "permissions", Status: OK, Message: "the tfgate jobs have the permissions they need"})
	} else if len(gaps) > 0 {
		out = append(out, Finding{Check: "permissions", Status: Warn, Message: strings.Join(dedupe(gaps), "\n"),
			Fix: "add the missing scopes to the workflow's (or the job's) permissions block, as tfgate's examples/workflows have them"})
	}

	out = append(out, runActionlint(o, w))
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// runActionlint lints every workflow, without shellcheck and pyflakes (as `make
// lint-workflows`: the result must not depend on what else the machine has).
func runActionlint(o Options, w workflows) Finding {
	f := Finding{Check: "actionlint"}
	if len(w.files) == 0 {
		f.Status, f.Message = Unknown, "actionlint not run: no workflows"
		return f
	}
	if o.Actionlint == "" {
		f.Status, f.Message = Unknown, "actionlint is not installed: the workflows were not linted"
		f.Fix = "install it (go install github.com/rhysd/actionlint/cmd/actionlint@latest) and run `tfgate doctor` again"
		return f
	}
	args := []string{"-shellcheck=", "-pyflakes=", "-no-color"}
	for _, wf := range w.files {
		args = append(args, wf.file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.Actionlint, args...)
	cmd.Dir = o.Root
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.Status = Warn
		f.Message = "actionlint finds problems in the workflows:\n" + strings.TrimSpace(string(out))
		if len(out) == 0 {
			f.Message = "actionlint " + err.Error()
		}
		f.Fix = "fix each file:line above; `actionlint` runs the same checks"
		return f
	}
	f.Status, f.Message = OK, fmt.Sprintf("actionlint passes the %d workflows", len(w.files))
	return f
}
