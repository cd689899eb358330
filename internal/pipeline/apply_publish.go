package pipeline

import (
	"context"
	"errors"

	"github.com/tfgate/tfgate/internal/notify"
)

// publish leaves the audit of an apply run (notify.PublishApply): the job summary, the
// audit log, and on GitHub the apply comment and the status tfgate/apply.
func (a *review) publish(ctx context.Context, runErr error) error {
	if a.gh == nil {
		return nil
	}
	var stopped string
	if runErr != nil && a.run.Projects == nil {
		stopped = a.Masker.String(runErr.Error())
	}
	// The tracking issues first: the audit names them (apply_issues.go).
	terr := a.track(ctx)
	p := notify.Apply{GitHub: a.gh, Repo: a.repo, Run: a.run, Stopped: stopped, DryRun: a.req.DryRun, Version: a.req.TfgateVersion,
		Already: a.already()}
	if a.req.AuditLog != "" && len(a.run.Projects) > 0 {
		p.AuditLog = func() error {
			entries := AuditEntries(a.run, a.repo.String(), a.gh.Env.RunURL(), a.req.TfgateVersion, a.req.Now())
			return AppendAudit(a.req.AuditLog, entries)
		}
	}
	return errors.Join(terr, notify.PublishApply(ctx, p))
}
