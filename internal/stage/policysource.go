package stage

// PolicySource decides where the policies that judge a run come from: the pure form of the
// rule "a change must not choose the policies that judge it".
//
//   - from "" (the default): the base commit when the run compares with a base or runs in
//     CI (there with the remote default branch when no base is given: a pull request planned
//     with --all must not be judged by the policies it carries); else the working tree.
//   - from "worktree": the working tree, for a policy author on a laptop; refused in CI.
//   - from "base": the base commit.
//
// needDefaultBase says that the base commit is wanted but no base was given: the caller
// uses the remote default branch.
func PolicySource(from, base string, inCI bool) (source string, needDefaultBase bool, err error) {
	switch from {
	case "":
		if base == "" && !inCI {
			return PoliciesFromWorktree, false, nil
		}
		return PoliciesFromBase, base == "", nil
	case PoliciesFromWorktree:
		if inCI {
			return "", false, Optionf("{PoliciesFrom} worktree is refused in CI: a change must not choose the policies that judge it; policies come from the base commit")
		}
		return PoliciesFromWorktree, false, nil
	case PoliciesFromBase:
		return PoliciesFromBase, base == "", nil
	}
	return "", false, Optionf("{PoliciesFrom} %q: want one of %s, %s", from, PoliciesFromBase, PoliciesFromWorktree)
}
