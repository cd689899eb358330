package terraform

import (
	"context"
	"fmt"
	"io"
	"os"
)

// maxCaptured bounds what capture reads back: a JSON document terraform printed that is
// larger than this is refused rather than read into memory whole.
const maxCaptured = 4 << 30

// capture runs `terraform args…` with its stdout in an unlinked temporary file rather than
// a pipe, and returns what it printed. Terraform writes a JSON document (show -json, state
// pull) in one piece when it is done: through a pipe into a growing buffer, a 35 MB plan
// passes through 64 KB at a time and is copied into buffers doubling up to 64 MB; from the
// file it is read once into a buffer of its exact size. The file is unlinked as soon as it
// is open: it holds the plan's secrets in clear text, and nothing of it stays on disk
// whatever happens to tfgate. what names the command in errors ("show", "state pull").
func (r *runner) capture(ctx context.Context, what string, args ...string) ([]byte, error) {
	f, err := os.CreateTemp("", "tfgate-terraform-*.json")
	if err != nil {
		return nil, fmt.Errorf("%s %s in %s: %w", r.bin.Flavor, what, r.name, err)
	}
	os.Remove(f.Name())
	defer f.Close()
	err = r.run(ctx, what, func() error {
		cmd := r.direct(ctx, r.execEnv(), args...)
		cmd.Stdout = f
		cmd.Stderr = io.MultiWriter(r.log, r.stderr)
		return r.runDirect(cmd)
	})
	if err != nil {
		return nil, err
	}
	return readCaptured(f)
}

// readCaptured reads the whole of f, whatever its offset, into a buffer of its size.
func readCaptured(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read terraform's output: %w", err)
	}
	if st.Size() > maxCaptured {
		return nil, fmt.Errorf("read terraform's output: %d bytes, more than tfgate reads (%d)", st.Size(), int64(maxCaptured))
	}
	out := make([]byte, st.Size())
	n, err := f.ReadAt(out, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read terraform's output: %w", err)
	}
	return out[:n], nil
}
