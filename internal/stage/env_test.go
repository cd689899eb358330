package stage

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tfgate/tfgate/internal/secret"
)

// Defaults fills in every unset part of a zero Env with something safe to call, and keeps
// what is set.
func TestEnvDefaults(t *testing.T) {
	var env Env
	env.Defaults()
	if env.Masker == nil || !env.Masker.Empty() {
		t.Errorf("masker %v, want an empty one", env.Masker)
	}
	if _, ok := env.Progress.(NopProgress); !ok {
		t.Errorf("progress %T, want NopProgress", env.Progress)
	}
	if env.Log == nil || env.Log.Enabled(t.Context(), slog.LevelError) {
		t.Errorf("log %v, want one that logs nothing", env.Log)
	}
	if env.Warn == nil || env.Now == nil {
		t.Fatal("warn or now left nil")
	}
	env.Warn("dropped")
	if d := time.Since(env.Now()); d < 0 || d > time.Minute {
		t.Errorf("now is %s off the clock, want time.Now", d)
	}

	warned, at := 0, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := Env{Masker: secret.NewMasker(nil).With("hunter2-secret"), Progress: &recordingProgress{}, Log: slog.Default(),
		Warn: func(string) { warned++ }, Now: func() time.Time { return at }}
	got := set
	got.Defaults()
	got.Warn("kept")
	if got.Masker != set.Masker || got.Progress != set.Progress || got.Log != set.Log || warned != 1 || !got.Now().Equal(at) {
		t.Errorf("Defaults replaced what was set: %+v", got)
	}
}
