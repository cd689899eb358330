package terraform

// DataDir is terraform's data directory for the runner's project (TF_DATA_DIR, else
// .terraform in its directory): where init records the modules it installed, which apply
// compares with a plan file's configuration.
func (r *runner) DataDir() string { return r.dataDir() }
