package pipeline

import (
	"reflect"
	"testing"

	"github.com/tfgate/tfgate/internal/codeowners"
	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/gate"
	"github.com/tfgate/tfgate/internal/project"
)

// Which files each target stands for, and the CODEOWNERS needs they make: a rename counts
// at both paths, a dropped project its own files, the files of no project are the shared
// review's (or every target's when there is none); fail closed on what cannot be told.
func TestCodeOwnerNeeds(t *testing.T) {
	cfg := config.Default()
	cfg.Approval.CodeOwners = true
	const file = "* @acme/default\n/network/ @acme/platform\n/app/ @bob @acme/apps\n/legacy/ ops@example.com\n/scripts/ @acme/platform\n*.md\n"
	tgt := func(name, dir, review string) target {
		return target{projectCase: projectCase{p: project.Project{Name: name, Dir: dir, Workspace: "default"}, review: review}}
	}
	net, app := tgt("core-networking", "network", ""), tgt("app", "app", "")
	dropped, shared := tgt("legacy (dropped by the change; legacy/main.tf changed)", "legacy", "vanished"), tgt("files outside every project (scripts/hook.sh)", ".", "shared")
	files := []string{"app/new.tf", "legacy/main.tf", "network/old.tf", "README.md", "scripts/hook.sh", "top.txt"}
	facts := func(text string, targets ...target) *runFacts {
		of := ownersFile{source: "base commit 1a2b3c4"}
		if text != "" {
			of = ownersFile{file: codeowners.Parse(text), source: ".github/CODEOWNERS at base commit 1a2b3c4"}
		}
		return &runFacts{targets: targets, owners: ownerFacts{files: files, byRules: map[*config.Config]ownersFile{cfg: of}}}
	}
	platform := func(what string) gate.OwnerNeed { return gate.NeedOwner("CODEOWNERS "+what, "acme/platform") }

	a := facts(file, net, app, dropped, shared)
	for _, c := range []struct {
		t    target
		want []gate.OwnerNeed
	}{
		{net, []gate.OwnerNeed{platform("/network/: network/old.tf")}},
		{app, []gate.OwnerNeed{gate.NeedOwner("CODEOWNERS /app/: app/new.tf", "bob", "acme/apps")}},
		{dropped, []gate.OwnerNeed{gate.Unmeetable("CODEOWNERS /legacy/: legacy/main.tf",
			"its owners are e-mail addresses only (ops@example.com), which tfgate cannot match to GitHub logins; name them as @user or @org/team")}},
		// README.md is un-owned by "*.md"; top.txt is the default owner's.
		{shared, []gate.OwnerNeed{platform("/scripts/: scripts/hook.sh"), gate.NeedOwner("CODEOWNERS *: top.txt", "acme/default")}},
	} {
		if got := a.ownedProject(cfg, c.t).OwnerNeeds; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.t.p.Name, got, c.want)
		}
	}

	// Without a shared review the files of no project are every target's.
	a = facts(file, net)
	want := []gate.OwnerNeed{platform("/network/: network/old.tf"), gate.NeedOwner("CODEOWNERS /app/: app/new.tf", "bob", "acme/apps"),
		gate.Unmeetable("CODEOWNERS /legacy/: legacy/main.tf", "its owners are e-mail addresses only (ops@example.com), which tfgate cannot match to GitHub logins; name them as @user or @org/team"),
		platform("/scripts/: scripts/hook.sh"), gate.NeedOwner("CODEOWNERS *: top.txt", "acme/default")}
	if got := a.ownedProject(cfg, net).OwnerNeeds; !reflect.DeepEqual(got, want) {
		t.Errorf("no shared review:\n got %+v\nwant %+v", got, want)
	}

	// No CODEOWNERS, or an invalid line: no approval meets it.
	if got := facts("", net).ownedProject(cfg, net).OwnerNeeds; !reflect.DeepEqual(got, []gate.OwnerNeed{gate.Unmeetable("approval.codeowners",
		"the base commit 1a2b3c4 has no CODEOWNERS (in .github/, the root or docs/)")}) {
		t.Errorf("no CODEOWNERS: %+v", got)
	}
	got := facts("!x @a\n/network/ @acme/platform\n", net).ownedProject(cfg, net).OwnerNeeds
	if len(got) == 0 || got[0].Problem == "" || got[0].For != ".github/CODEOWNERS at base commit 1a2b3c4" {
		t.Errorf("an invalid line: %+v", got)
	}

	// approval.codeowners off: no need, nothing read.
	off := config.Default()
	if got := facts(file, net).ownedProject(off, net).OwnerNeeds; got != nil {
		t.Errorf("codeowners off: %+v", got)
	}
	if got := facts(file, net, app).neededTeams([]*config.Config{cfg}); !reflect.DeepEqual(got, []string{"acme/apps", "acme/default", "acme/platform"}) {
		t.Errorf("teams %q", got)
	}
}
