package ci

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Output is one step output for $GITHUB_OUTPUT.
type Output struct {
	Name, Value string
}

// WriteOutputs appends step outputs to the file GitHub Actions reads ($GITHUB_OUTPUT), each
// in the multi-line form `name<<DELIM … DELIM` with a random delimiter, so that no value —
// a project name, JSON, anything from the repository — can end its own value early and
// inject another output.
func WriteOutputs(path string, outputs []Output) error {
	var b strings.Builder
	for _, o := range outputs {
		if o.Name == "" || strings.ContainsAny(o.Name, "<\r\n=") {
			return fmt.Errorf("step output name %q: want a plain name", o.Name)
		}
		delim, err := delimiter(o.Value)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, o.Value, delim)
	}
	return appendFile(path, b.String())
}

// delimiter is a random marker that does not occur in value.
func delimiter(value string) (string, error) {
	for range 8 {
		buf := make([]byte, 16)
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		d := "tfgate_" + hex.EncodeToString(buf)
		if !strings.Contains(value, d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("no delimiter found for a step output")
}

// MaxSummaryBytes is GitHub's limit for one step's job summary ($GITHUB_STEP_SUMMARY).
const MaxSummaryBytes = 1 << 20

// AppendSummary appends markdown to the job summary file, cut (at a line, saying so) to fit
// what is left of GitHub's 1 MiB per step; it returns whether it had to cut.
func AppendSummary(path, markdown string) (cut bool, err error) {
	used := int64(0)
	if st, err := os.Stat(path); err == nil {
		used = st.Size()
	}
	room := MaxSummaryBytes - int(used)
	const notice = "\n\n> [!WARNING]\n> The job summary is cut here: GitHub keeps at most 1 MiB per step. The full report is in the job log.\n"
	if len(markdown) > room {
		keep := max(0, room-len(notice))
		markdown = markdown[:keep]
		for !utf8.ValidString(markdown) && len(markdown) > 0 { // never cut inside a character
			markdown = markdown[:len(markdown)-1]
		}
		if i := strings.LastIndexByte(markdown, '\n'); i >= 0 {
			markdown = markdown[:i]
		}
		markdown += notice
		if len(markdown) > room { // no room even for the notice
			return true, nil
		}
		cut = true
	}
	return cut, appendFile(path, markdown)
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GitHub Actions file %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("GitHub Actions file %s: %w", path, err)
	}
	return f.Close()
}

// StopCommandsToken is a random token for ::stop-commands::TOKEN … ::TOKEN::, which makes
// the runner ignore workflow commands in what is printed in between.
func StopCommandsToken() (string, error) {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return "tfgate-" + hex.EncodeToString(buf), nil
}
