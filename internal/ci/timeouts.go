package ci

import (
	"fmt"
	"time"
)

// Timeouts are the time limits of GitHub API use the environment sets: one request's
// attempt (TFGATE_GITHUB_TIMEOUT) and all of a run's publishing (TFGATE_PUBLISH_TIMEOUT);
// 0 takes tfgate's defaults. An unset variable is 0, anything but a positive Go duration
// is an error naming the variable.
func (g GitHub) Timeouts() (request, publish time.Duration, err error) {
	if request, err = envDuration("TFGATE_GITHUB_TIMEOUT", g.RequestTimeout); err != nil {
		return 0, 0, err
	}
	if publish, err = envDuration("TFGATE_PUBLISH_TIMEOUT", g.PublishTimeout); err != nil {
		return 0, 0, err
	}
	return request, publish, nil
}

func envDuration(name, value string) (time.Duration, error) {
	if value == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 30s or 5m", name, value)
	}
	return d, nil
}
