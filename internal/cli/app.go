package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/tfgate/tfgate/internal/config"
	"github.com/tfgate/tfgate/internal/git"
	"github.com/tfgate/tfgate/internal/render"
	"github.com/tfgate/tfgate/internal/secret"
	"github.com/tfgate/tfgate/internal/stage"
)

// globalOptions are the flags every command accepts.
type globalOptions struct {
	Chdir    string
	Config   string
	LogLevel string
	NoColor  bool
}

// app is what commands share: streams, environment, global flags.
type app struct {
	global globalOptions

	rawOut, rawErr io.Writer // unmasked, only to ask "is this a terminal?"
	stdout, stderr io.Writer // masked, and guarded against workflow commands (render.GuardCommands)
	environ        []string
	masker         *secret.Masker
	log            *slog.Logger
	level          slog.Level // parsed --log-level
}

func newApp(rawOut, rawErr, stdout, stderr io.Writer, environ []string, m *secret.Masker) *app {
	return &app{rawOut: rawOut, rawErr: rawErr, stdout: stdout, stderr: stderr, environ: environ, masker: m,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func (a *app) getenv(name string) string {
	for i := len(a.environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(a.environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// setupLogging configures the stderr logger from --log-level.
func (a *app) setupLogging() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.global.LogLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", a.global.LogLevel)
	}
	a.level = level
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// color reports whether to colour output written to w.
func (a *app) color(w io.Writer) bool {
	if a.global.NoColor || a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// width is the terminal width of w, or 0 (the renderer's default) when w is not a terminal.
func (a *app) width(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
	}
	return 0
}

// root returns the repository root: -C as given, else the git top-level of the working dir.
func (a *app) root(ctx context.Context) (string, error) {
	if a.global.Chdir != "" {
		dir, err := filepath.Abs(a.global.Chdir)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("-C %s: %w", a.global.Chdir, err)
		} else if !st.IsDir() {
			return "", fmt.Errorf("-C %s: not a directory", a.global.Chdir)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return git.TopLevel(ctx, wd)
}

// repository returns the root and its configuration: what every repository command needs.
func (a *app) repository(ctx context.Context) (string, *config.Config, error) {
	root, err := a.root(ctx)
	if err != nil {
		return "", nil, err
	}
	cfg, err := a.loadConfig(ctx, root)
	return root, cfg, err
}

// env is what every command's run shares, built here once: the repository and its
// configuration, the masker, where warnings and logs go, and tfgate's version. A command
// that runs terraform adds how (its flags) before it hands env to its request.
func (a *app) env(ctx context.Context) (stage.Env, error) {
	root, cfg, err := a.repository(ctx)
	if err != nil {
		return stage.Env{}, err
	}
	return stage.Env{Root: root, Config: cfg, ConfigFile: a.configFile(), Masker: a.masker, Warn: a.warn, Log: a.log,
		TfgateVersion: version()}, nil
}

// loadConfig reads --config or .tfgate.yaml at root (absent = autodetect).
func (a *app) loadConfig(ctx context.Context, root string) (*config.Config, error) {
	path, explicit := config.FileName, false
	if a.global.Config != "" {
		// Like every other path argument, relative to the working directory.
		abs, err := filepath.Abs(a.global.Config)
		if err != nil {
			return nil, err
		}
		path, explicit = abs, true
	}
	return config.Load(ctx, root, path, explicit)
}

// configFile is the config path as given (read at the base commit relative to the root).
func (a *app) configFile() string {
	if a.global.Config != "" {
		if abs, err := filepath.Abs(a.global.Config); err == nil {
			return abs
		}
	}
	return config.FileName
}

// addSecret masks a secret learnt after start (a flag's value) in everything tfgate writes
// from now on: stdout, stderr, logs, and what is masked through a.masker.
func (a *app) addSecret(v string) {
	a.masker = a.masker.With(v)
	for _, w := range []io.Writer{a.stdout, a.stderr} {
		if g, ok := w.(*render.CommandGuard); ok {
			w = g.Unwrap()
		}
		if sw, ok := w.(*secret.Writer); ok {
			sw.Also(v)
		}
	}
}
