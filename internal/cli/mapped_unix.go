//go:build unix

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile reads the regular file f of size bytes into memory of its own, outside Go's
// heap: an anonymous private mapping. It is a snapshot, as a read into the heap is (the
// file may change or shrink afterwards: nothing reads it again), and the collector never
// counts or scans it. release gives parts of it back to the system as the decoding is done
// with them (they then read as zero bytes, which no JSON holds: anything reading a part
// again fails, and policy eval then reads the file afresh). Nil when it cannot map or read
// the file exactly (empty, grown or shrunk while read, or the system refuses): the caller
// reads it into the heap instead.
func mapFile(f *os.File, size int64) *input {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	var one [1]byte
	if _, err := io.ReadFull(f, data); err != nil {
		unix.Munmap(data)
		return nil
	}
	if n, _ := f.Read(one[:]); n != 0 { // grew while read: read it into the heap instead
		unix.Munmap(data)
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
