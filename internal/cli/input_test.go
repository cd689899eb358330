package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"format_version":"1.2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     string // TFGATE_MAX_PLAN_BYTES
		stdin   string
		arg     string
		want    string // the data read, when wantErr is ""
		wantErr string
	}{
		{name: "file", arg: small, want: `{"format_version":"1.2"}`},
		{name: "stdin", arg: "-", stdin: "{}", want: "{}"},
		{name: "file at the limit", env: "24", arg: small, want: `{"format_version":"1.2"}`},
		{name: "file over the limit", env: "23", arg: small,
			wantErr: small + " is larger than the limit of 23 bytes; raise it with TFGATE_MAX_PLAN_BYTES=BYTES"},
		{name: "stdin over the limit", env: "1KiB", arg: "-", stdin: strings.Repeat("x", 1025),
			wantErr: "standard input is larger than the limit of 1 KiB; raise it with TFGATE_MAX_PLAN_BYTES=BYTES"},
		{name: "endless device", env: "1MiB", arg: "/dev/zero",
			wantErr: "/dev/zero is larger than the limit of 1 MiB; raise it with TFGATE_MAX_PLAN_BYTES=BYTES"},
		{name: "missing file", arg: filepath.Join(dir, "nope.json"), wantErr: "open " + filepath.Join(dir, "nope.json") + ": no such file or directory"},
		{name: "limit not a size", env: "lots", arg: small,
			wantErr: `TFGATE_MAX_PLAN_BYTES="lots": want a number of bytes greater than 0, such as 1073741824 or 1GiB`},
		{name: "limit zero", env: "0", arg: small,
			wantErr: `TFGATE_MAX_PLAN_BYTES="0": want a number of bytes greater than 0, such as 1073741824 or 1GiB`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := readInput(withInputLimit(strings.NewReader(tt.stdin), tt.env), tt.arg)
			switch {
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("error %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantErr == "" && string(data) != tt.want:
				t.Errorf("read %q, want %q", data, tt.want)
			}
		})
	}
}

func TestReadInputDefaultLimit(t *testing.T) {
	// TFGATE_MAX_PLAN_BYTES unset, and a reader Run did not wrap, get the default.
	if l := withInputLimit(strings.NewReader(""), "").(*limitedStdin); l.limit != defaultMaxInputBytes || l.err != nil {
		t.Errorf("limit %d, %v; want the default", l.limit, l.err)
	}
	if got := formatSize(defaultMaxInputBytes); got != "512 MiB" {
		t.Errorf("default limit %s, want 512 MiB", got)
	}
}

func TestSizes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		text string
	}{
		{"1", 1, "1 byte"},
		{"1000", 1000, "1000 bytes"},
		{"1024", 1024, "1 KiB"},
		{"2KiB", 2048, "2 KiB"},
		{"512 MiB", 512 << 20, "512 MiB"},
		{"1GiB", 1 << 30, "1 GiB"},
		{"1536MiB", 1536 << 20, "1536 MiB"},
	}
	for _, tt := range tests {
		n, err := parseSize(tt.in)
		if err != nil || n != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, n, err, tt.want)
		}
		if got := formatSize(n); got != tt.text {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, tt.text)
		}
	}
	for _, bad := range []string{"", "-1", "1.5GiB", "1TB", "9223372036854775807GiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}
