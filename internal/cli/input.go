package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// defaultMaxInputBytes bounds a plan file read from an argument or standard input: well
// above real plans (100 MB ones render), and small enough that reading /dev/zero or an
// endless pipe ends in an error rather than in the machine running out of memory.
const defaultMaxInputBytes = 512 << 20

// maxInputEnv overrides defaultMaxInputBytes.
const maxInputEnv = "TFGATE_MAX_PLAN_BYTES"

// limitedStdin is standard input as Run hands it to the commands, with the size limit for
// readInput: every command reads its file argument with readInput(cmd.InOrStdin(), name),
// so the limit travels with the reader they already pass.
type limitedStdin struct {
	io.Reader
	limit int64
	err   error // maxInputEnv is set but not a size
}

// withInputLimit wraps stdin with the limit set by value (maxInputEnv; "" is the default).
func withInputLimit(stdin io.Reader, value string) io.Reader {
	l := &limitedStdin{Reader: stdin, limit: defaultMaxInputBytes}
	if value != "" {
		l.limit, l.err = parseSize(value)
		if l.err != nil {
			l.err = fmt.Errorf("%s=%q: %w", maxInputEnv, value, l.err)
		}
	}
	return l
}

// readInput reads a file argument; "-" is standard input. It refuses input larger than
// the limit carried by stdin (see withInputLimit), or defaultMaxInputBytes.
func readInput(stdin io.Reader, name string) ([]byte, error) {
	in, err := openInput(stdin, name, false)
	if err != nil {
		return nil, err
	}
	return in.data, nil
}

// input is a file argument's bytes: read into memory, or mapped (mapped.go), in which case
// release drops parts of it from memory (they stay readable) and close unmaps it.
type input struct {
	data    []byte
	release func(part []byte)
	close   func() error
}

// openInput reads a file argument ("-" is standard input) within the size limit carried by
// stdin (see withInputLimit), or defaultMaxInputBytes. With mapped, a regular file is
// mapped into memory where the system can (then nothing of it is copied to the heap).
func openInput(stdin io.Reader, name string, mapped bool) (*input, error) {
	limit := int64(defaultMaxInputBytes)
	if l, ok := stdin.(*limitedStdin); ok {
		if l.err != nil {
			return nil, l.err
		}
		stdin, limit = l.Reader, l.limit
	}
	tooLarge := fmt.Errorf("%s is larger than the limit of %s; raise it with %s=BYTES", name, formatSize(limit), maxInputEnv)
	r := stdin
	var size int64 // a regular file's size: the buffer is allocated once
	if name == "-" {
		tooLarge = fmt.Errorf("standard input is larger than the limit of %s; raise it with %s=BYTES", formatSize(limit), maxInputEnv)
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if st.Size() > limit {
				return nil, tooLarge
			}
			size = st.Size()
			if in := mapFileIf(mapped, f, size); in != nil {
				return in, nil
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil { // mapFile may have read some of it
				return nil, err
			}
		}
		r = f
	}
	var buf bytes.Buffer
	if n := int(size); int64(n) == size && n < math.MaxInt-bytes.MinRead {
		buf.Grow(n + bytes.MinRead) // room to see the end without growing
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return &input{data: data, close: func() error { return nil }}, nil
}

// parseSize reads a positive number of bytes, optionally with a KiB, MiB or GiB suffix.
func parseSize(s string) (int64, error) {
	num, unit := strings.TrimSpace(s), int64(1)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(n), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("want a number of bytes greater than 0, such as 1073741824 or 1GiB")
	}
	return n * unit, nil
}

// formatSize writes a limit the way users set it: "512 MiB", "1 KiB", "1000 bytes".
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
