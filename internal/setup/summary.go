package setup

import (
	"fmt"
	"io"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// WriteSummary says what init wrote, which tfgate the workflows run, and the settings a
// person must make on GitHub: the plan key secret, tfgate/gate as a required check, and
// optionally an environment.
func WriteSummary(w io.Writer, files []File, projects []Project, branch string, action Action) error {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	names := make([]string, len(projects))
	for i, p := range projects {
		names[i] = p.Name
	}
	_, err := fmt.Fprintf(w, `Wrote %s
for %s (%s) and the default branch %s.
%s

Settings to make on GitHub (tfgate doctor checks them):
  1. The Actions secret TFGATE_PLAN_KEY, which encrypts the plan bundles (16 random characters
     or more), for example:
       openssl rand -base64 32 | gh secret set TFGATE_PLAN_KEY
  2. tfgate/gate as a required status check of %[4]s: Settings → Rules → Rulesets → New branch
     ruleset, target the default branch, "Require status checks to pass", add tfgate/gate
     (or, with classic branch protection, Settings → Branches → %[4]s). Without it the gate
     only reports: a pull request can merge, and apply, without the approvals.
  3. Optionally, a GitHub environment for apply (required reviewers, secrets of its own):
     create it under Settings → Environments and uncomment "environment:" in
     .github/workflows/apply.yml.
Then commit the files and open a pull request: the plan workflow runs on it.
`, strings.Join(paths, ", "), english.Plural(len(projects), "project", "projects"), strings.Join(names, ", "), branch, runs(action))
	return err
}

// runs says which tfgate the workflows run: the action downloads that release and checks
// its checksum, on any runner, without Go. A zero Action is a development build's.
func runs(a Action) string {
	if a.Ref == "" || a.Dev {
		return "This tfgate is a development build, no release: the workflows run tfgate/tfgate@" + ExampleRef + ",\n" +
			"the newest " + ExampleRef + ".x.y release (pin one by hand, or run init with a released tfgate)."
	}
	hint := "\n(`tfgate init --pin sha` pins the release's commit instead)"
	if a.Comment != "" {
		hint = ""
	}
	return "The workflows run " + a.String() + ".\n" +
		"The action downloads that release and checks it against its checksums.txt." + hint
}
