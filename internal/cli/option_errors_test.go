package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/tfgate/tfgate/internal/stage"
)

// The pipeline names options by request field; the user reads the flags that set them.
func TestErrorMessageNamesFlags(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{stage.Optionf("{Out} %s is not empty", "/tmp/{Out}%d"), "--out /tmp/{Out}%d is not empty"},
		{fmt.Errorf("plan: %w", stage.Optionf("{All} and {Changed} are exclusive")), "plan: --all and --changed are exclusive"},
		{errors.Join(errors.New("first"), stage.Optionf("{PatchFile}: %w", fs.ErrPermission)), "first\n--suggest-patch: permission denied"},
		{stage.Optionf("{Unknown} field"), "Unknown field"},
		{errors.New("no options named"), "no options named"},
	} {
		if got := errorMessage(tt.err); got != tt.want {
			t.Errorf("errorMessage(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
	err := stage.Optionf("{PatchFile}: %w", fs.ErrPermission)
	if !errors.Is(err, fs.ErrPermission) || err.Error() != "PatchFile: permission denied" {
		t.Errorf("Optionf wraps like fmt.Errorf: %q, Is = %v", err, errors.Is(err, fs.ErrPermission))
	}
}
