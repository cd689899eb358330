//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the regular file f of size bytes, read only: a large plan then costs no
// copy in the heap, and the parts the decoding is done with leave memory as it goes
// (release: the system reads them from the file again if they are ever read). Nil when it
// cannot map the file (empty, or the system refuses): the caller reads it instead.
func mapFile(f *os.File, size int64) *input {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	page := os.Getpagesize()
	return &input{
		data: data,
		release: func(part []byte) {
			off := within(data, part)
			if off < 0 {
				return
			}
			start, end := (off+page-1)/page*page, (off+len(part))/page*page
			if end > start {
				_ = unix.Madvise(data[start:end], unix.MADV_DONTNEED) // advice: nothing to undo if refused
			}
		},
		close: func() error { return unix.Munmap(data) },
	}
}
