package terraform

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"time"
)

// followInterval is how often a followed output file is read while terraform runs: often
// enough for progress, rarely enough to cost nothing.
const followInterval = 50 * time.Millisecond

// followedOutput gives a command files for its stdout and stderr instead of pipes, and
// copies what it writes to the writers as it grows. With a pipe, terraform's next write after
// tfgate died (the OOM killer, SIGKILL, a crash) is a write to a closed pipe: terraform dies
// of SIGPIPE in the middle of an apply, without saving the state, and leaves its provider
// running. A file takes every write whoever reads it, so terraform runs to its end, saves
// the state and stops its providers; tfgate's own process group (setProcessGroup) keeps a
// signal to tfgate's group from reaching it. The files are unlinked once both ends are
// open: nothing stays on disk, whatever happens to tfgate.
type followedOutput struct {
	files   []*os.File // the readers
	ends    []*os.File // the command's ends, closed in tfgate once it started
	writers []io.Writer
	done    chan struct{}
	copied  chan struct{}
}

// followOutput sets cmd's Stdout and Stderr to unlinked temporary files that are copied to
// stdout and stderr. Call start after cmd.Start (or instead of it) and wait after cmd.Wait.
func followOutput(cmd *exec.Cmd, stdout, stderr io.Writer) (*followedOutput, error) {
	f := &followedOutput{done: make(chan struct{}), copied: make(chan struct{})}
	var ends []*os.File
	fail := func(err error) (*followedOutput, error) {
		for _, e := range append(ends, f.files...) {
			e.Close()
		}
		return nil, err
	}
	for _, w := range []io.Writer{stdout, stderr} {
		wf, err := os.CreateTemp("", "tfgate-terraform-*.out")
		if err != nil {
			return fail(err)
		}
		ends = append(ends, wf)
		rf, err := os.Open(wf.Name())
		if err != nil {
			os.Remove(wf.Name())
			return fail(err)
		}
		os.Remove(wf.Name())
		f.files, f.writers = append(f.files, rf), append(f.writers, w)
	}
	cmd.Stdout, cmd.Stderr = ends[0], ends[1]
	// exec closes nothing it was given: tfgate's copies of the write ends are closed once
	// the child has its own (run).
	f.ends = ends
	return f, nil
}

// run starts cmd, follows its output and waits for it, like cmd.Run.
func (f *followedOutput) run(cmd *exec.Cmd) error {
	err := cmd.Start()
	for _, e := range f.ends {
		e.Close()
	}
	if err != nil {
		for _, r := range f.files {
			r.Close()
		}
		return err
	}
	go f.copy()
	err = cmd.Wait()
	close(f.done)
	<-f.copied
	return err
}

// copy reads each file from where it stopped until the command has exited and the files
// are drained.
func (f *followedOutput) copy() {
	defer close(f.copied)
	defer func() {
		for _, r := range f.files {
			r.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	drain := func() {
		for i, r := range f.files {
			for {
				n, err := r.Read(buf)
				if n > 0 {
					f.writers[i].Write(buf[:n])
				}
				if err != nil || n == 0 {
					if err != nil && !errors.Is(err, io.EOF) {
						return
					}
					break
				}
			}
		}
	}
	t := time.NewTicker(followInterval)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			drain()
			return
		case <-t.C:
			drain()
		}
	}
}
