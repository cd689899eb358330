//go:build unix

package stage

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on the file path (made when missing) without waiting:
// false when another process holds it, or it cannot be made.
func lockFile(path string) (unlock func(), ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	// Closing the file releases the lock, also when the process dies.
	return func() { f.Close() }, true
}
