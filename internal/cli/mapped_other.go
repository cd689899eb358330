//go:build !unix

package cli

import "os"

// mapFile maps nothing here: the file is read into memory.
func mapFile(*os.File, int64) *input { return nil }
