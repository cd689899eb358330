package cli

import "os"

// mapFileIf is mapFile when mapped is set, else nil.
func mapFileIf(mapped bool, f *os.File, size int64) *input {
	if !mapped {
		return nil
	}
	return mapFile(f, size)
}

// within is the offset of part in data when part is a slice of data, else -1.
func within(data, part []byte) int {
	off := cap(data) - cap(part)
	if len(part) == 0 || off < 0 || off+len(part) > len(data) || &data[off] != &part[0] {
		return -1
	}
	return off
}
