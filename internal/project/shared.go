package project

// Unowned returns the files (in sorted order, each once) that are no input of any of
// projects: scripts, shared var files, anything a provisioner, file() or templatefile()
// may read from outside a project's directory and modules. A review must cover them too:
// a change to one needs approvals like a project change, and a plan is stale when one
// differs from what was planned (see pipeline). A project's own inputs are what
// InputFiles hashes (not what WhenModified watches, nor what symbolic links lead to); the eager rule for projects with Problems (any Terraform file
// touches them) does not make a file theirs.
func Unowned(projects []Project, files []string) []string {
	idx := newFileIndex(files)
	owned := make(map[string]bool, len(idx))
	for _, p := range projects {
		// What InputFiles hashes, whatever WhenModified says: its globs select a project
		// on a change, but a file they reach outside the project's contents is not hashed
		// into its plan, so it stays shared (reviewed, and hashed into every plan).
		//
		// Nor do symbolic links make a file a project's own: a link is one file away, so a
		// change could otherwise give a shared script to its most lenient project (add
		// dev/hook.sh -> ../scripts/hook.sh) and take it out of every other project's review
		// and staleness. A linked file stays shared; the link's project is still selected by
		// a change to it (ChangedWhy).
		//
		// Links to directories alike (Linked): envs/prod/scripts → ../../scripts leaves
		// scripts/deploy.sh shared, reviewed and hashed into every plan as before. A file
		// that is already a project's own stays that project's: envs/dev/scripts/deploy.sh,
		// reached through envs/prod/scripts → ../dev/scripts, is dev's (not shared) and an
		// input of prod too, hashed into prod's bundle under envs/prod/scripts/deploy.sh;
		// a change to it selects both, so it needs the approvals of both, and leaves a plan
		// of either stale. Owning is not exclusive: prod's link adds prod to the file's
		// review and never takes dev (or the shared review) out of it.
		q := p
		q.WhenModified, q.OwnInputs, q.Links, q.Linked = nil, true, nil, nil
		idx.eachInput(q, func(f string) bool { owned[f] = true; return true })
	}
	var out []string
	for i, f := range idx {
		if !owned[f] && (i == 0 || idx[i-1] != f) {
			out = append(out, f)
		}
	}
	return out
}
