package report

// Scope is why a change-detected run works on its projects: the changed files, which of
// them touch each project and through which local module, the changed files that belong
// to no project (Shared), and what the change took out of planning (Dropped). It is the
// selection's own account (stage.Selection.Scope), never a second computation.
type Scope struct {
	Files   []string // every changed file, root-relative, sorted
	Touches []Touch  // project by project, in project order
	Shared  []string // changed files of no project that a review covers
	Dropped []Dropped
}

// Touch is a changed file that touches a project, directly (Module "") or as part of the
// contents of the local module Module.
type Touch struct {
	Project, Workspace string // the project's name and workspace, as in Run.Projects
	File, Module       string
}

// Dropped is a directory or project the change took out of planning, and how.
type Dropped struct {
	Name  string
	How   DropKind
	Files []string // the changed files that did it
}

// DropKind is how a change took a project out of planning.
type DropKind string

const (
	DropRemoved  DropKind = "removed"   // its Terraform code was removed
	DropToModule DropKind = "to_module" // it is now a local module of other projects
	DropVanished DropKind = "vanished"  // the base commit's project, which nothing plans now
)
