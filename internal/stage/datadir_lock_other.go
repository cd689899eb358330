//go:build !unix

package stage

// lockFile: no lock here, so no kept data directory: every run gets a new one.
func lockFile(string) (unlock func(), ok bool) { return nil, false }
