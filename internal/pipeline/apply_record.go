package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/report"
	"github.com/tfgate/tfgate/internal/stage"
	"github.com/tfgate/tfgate/internal/terraform"
)

// An apply that was cut off — tfgate killed, terraform killed, the state backend gone in the
// middle — may have created objects that no state holds: terraform writes the state at the
// end (and now and then on a long apply). The saved plan is then still "fresh" to terraform
// (the state's lineage and serial are those the plan was made on) and a re-run would apply
// it again, creating everything twice. Only the state backend is shared between runs, so
// that is where apply keeps its record: before terraform starts, an empty workspace named
// after the project's workspace and the plan (RecordPrefix); it is deleted once terraform
// has ended on its own with the state saved. A record found before an apply means one was
// cut off: the apply is refused until a human has checked the state.

// RecordPrefix begins the name of apply's record workspace:
// tfgate-apply-<workspace>-<first 16 hex digits of the plan's sha256>.
const RecordPrefix = "tfgate-apply-"

// StateNotSaved begins the error of a project terraform applied without saving the state.
const StateNotSaved = "applied, state NOT saved"

// DefaultStatePushWait is how long apply keeps trying to push a state terraform could not
// save (errored.tfstate) before it gives up and keeps the file.
const DefaultStatePushWait = 2 * time.Minute

// applyRecord is one project's apply record and what to do with a state terraform could not
// save.
type applyRecord struct {
	planSum  string        // the plan file's sha256
	keepDir  string        // where an unsaved state is kept
	key      string        // TFGATE_PLAN_KEY: encrypts the kept state; "" = kept in clear (0600)
	pushWait time.Duration // how long to retry `state push` of an unsaved state
	name     string        // the record workspace, once created
	none     string        // why the backend holds no record ("" = it does)
	// already says how tfgate knows an earlier run applied this plan (apply_applied.go).
	already string
	// stale: terraform refused the plan as stale, and no earlier run applied it.
	stale bool
}

func recordName(ws, planSum string) string { return RecordPrefix + ws + "-" + planSum[:16] }

// recordOf reports whether name is an apply record of workspace ws, and its plan's digits.
func recordOf(name, ws string) (plan string, ok bool) {
	rest, ok := strings.CutPrefix(name, RecordPrefix+ws+"-")
	if !ok || !hexDigits16.MatchString(rest) {
		return "", false
	}
	return rest, true
}

var hexDigits16 = regexp.MustCompile(`^[0-9a-f]{16}$`)

// recordApply is apply's workspace stage: refuse when the backend holds a record of an
// apply of this workspace that was cut off, else write this apply's record and select the
// project's workspace.
func recordApply(ctx context.Context, r *stage.ProjectRun, rec *applyRecord) error {
	if rec == nil || len(rec.planSum) < 16 {
		return fmt.Errorf("apply of %s: no plan sha256 to record the apply under", r.Project.Name)
	}
	ws := r.Project.Workspace
	if ws == "" {
		ws = "default"
	}
	if _, err := os.Lstat(filepath.Join(tfDir(r), "errored.tfstate")); err == nil {
		return fmt.Errorf("%s/errored.tfstate is there: an earlier apply could not save its state. Push it (`terraform state push errored.tfstate` in %s, after checking it), then plan again; nothing was applied", r.Project.Dir, r.Project.Dir)
	}
	name, wait := recordName(ws, rec.planSum), recordWait{}
	for {
		found, err := listRecords(ctx, r, ws)
		if noWorkspaces(err) {
			rec.none = "the state backend has no workspaces"
			return stage.SelectWorkspace(ctx, r)
		} else if err != nil {
			return err
		}
		if len(found) == 0 {
			err = r.TF.NewWorkspace(ctx, name)
			if err == nil {
				rec.name = name
				return stage.SelectWorkspace(ctx, r) // `workspace new` selected the record
			}
			if noWorkspaces(err) {
				rec.none = "the state backend cannot create workspaces"
				return stage.SelectWorkspace(ctx, r)
			}
			if wait.creating(r, err) { // another apply makes its record this moment
				if err := pause(ctx); err != nil {
					return err
				}
				continue
			}
			if !alreadyExists(err) {
				return errors.Join(fmt.Errorf("could not record the apply in the state backend (workspace %s): nothing was applied; re-run the apply", name), err)
			}
			found = []string{name} // another apply of this plan, started this moment
		}
		if err := stage.SelectWorkspace(ctx, r); err != nil {
			return err
		}
		// A record is also there while an apply runs: one racing this one (a re-run
		// started before the first ended). Wait for the state lock as terraform would, then
		// look again: a finished apply has deleted its record (apply_record_wait.go).
		left, err := wait.leftOver(ctx, r)
		if err != nil {
			return err
		}
		if left {
			return interruptedError(ctx, r, rec, found)
		}
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// alreadyExists reports whether `workspace new` found the workspace there already.
func alreadyExists(err error) bool {
	var ce *terraform.CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Stderr+ce.Error(), "already exists")
}

// noWorkspaces reports whether terraform said the backend does not do workspaces (the cloud
// block with one workspace name, some backends).
func noWorkspaces(err error) bool {
	var ce *terraform.CommandError
	return errors.As(err, &ce) && strings.Contains(strings.ToLower(ce.Stderr+ce.Error()), "workspaces not supported")
}

// interruptedError is the refusal of an apply whose state holds another apply's record:
// what the record is, where the state stands against the plan, what to do.
func interruptedError(ctx context.Context, r *stage.ProjectRun, rec *applyRecord, records []string) error {
	ws := r.Project.Workspace
	if ws == "" {
		ws = "default"
	}
	what := "an earlier apply of this plan was interrupted"
	// (one that is running still holds the state lock: recordApply waited for it first)
	for _, name := range records {
		if plan, _ := recordOf(name, ws); plan != rec.planSum[:16] {
			what = "an earlier apply on this state (of plan " + plan + "…) was interrupted"
		}
	}
	where := stateAgainstPlan(ctx, r)
	del := make([]string, len(records))
	for i, name := range records {
		del[i] = "`terraform workspace delete " + name + "`"
	}
	return fmt.Errorf("%s: check the state, then re-plan. The state backend still holds tfgate's record of an apply that never finished (workspace %s)%s. "+
		"Check the state against the infrastructure: objects that apply created may be missing from it (import them, or push the state the run kept, see docs/failure-modes.md); "+
		"then delete the record (%s in %s, workspace %s selected) and plan again in a new pull request. Nothing was applied",
		what, strings.Join(records, ", "), where, strings.Join(del, ", "), r.Project.Dir, ws)
}

// stateAgainstPlan says how the state compares with the plan's prior state, for the
// refusal; "" when either cannot be read.
func stateAgainstPlan(ctx context.Context, r *stage.ProjectRun) string {
	prior, err := terraform.PlanPriorState(r.PlanFile)
	if err != nil {
		return ""
	}
	cur, err := r.TF.StateMeta(ctx)
	switch {
	case err != nil:
		return ""
	case cur == prior && cur.Lineage == "":
		return "; there is still no state, as when the plan was made: terraform saved nothing of that apply, so what it created is in no state"
	case cur == prior:
		return fmt.Sprintf("; the state is as the plan found it (serial %d): terraform saved nothing of that apply, so what it created is in no state", cur.Serial)
	case prior.Lineage == "":
		return fmt.Sprintf("; the state has moved since the plan (there was none; now serial %d): terraform saved that apply, or part of it", cur.Serial)
	case cur.Lineage == prior.Lineage && cur.Serial > prior.Serial:
		return fmt.Sprintf("; the state has moved since the plan (serial %d → %d): terraform saved that apply, or part of it", prior.Serial, cur.Serial)
	}
	return fmt.Sprintf("; the state (%s) is not the one the plan was made on (%s)", cur, prior)
}

// finishApply runs after terraform apply: a state terraform could not save is pushed once
// the backend answers, else kept and named; the record goes once the state is saved and
// terraform ended on its own (an exit code, not a signal).
func finishApply(ctx context.Context, r *stage.ProjectRun, rec *applyRecord, applyErr error) error {
	if rec == nil {
		return applyErr
	}
	errored := filepath.Join(tfDir(r), "errored.tfstate")
	if _, err := os.Lstat(errored); err == nil {
		return unsavedState(ctx, r, rec, errored, applyErr)
	}
	var exit *exec.ExitError
	if applyErr != nil && (!errors.As(applyErr, &exit) || !exit.Exited()) {
		return applyErr // killed, or never started: the record stays, the next run checks
	}
	if rec.name != "" {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := r.TF.DeleteWorkspace(dctx, rec.name); err != nil {
			// The next apply of this state is refused until a human deletes it: better
			// than guessing.
			return errors.Join(applyErr, fmt.Errorf("the apply ended, but tfgate could not delete its record (workspace %s) from the state backend: the next apply of %s is refused until it is deleted (`terraform workspace delete %s`): %w", rec.name, r.Project.Name, rec.name, err))
		}
		rec.name = ""
	}
	return applyErr
}

// unsavedState handles errored.tfstate, terraform's copy of a state it applied but could
// not write to the backend.
func unsavedState(ctx context.Context, r *stage.ProjectRun, rec *applyRecord, errored string, applyErr error) error {
	// The backend may be back in a moment (a database restart): push what terraform
	// applied, without -force, so terraform's own lineage and serial checks apply.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rec.pushWait)
	defer cancel()
	var pushErr error
	for {
		if pushErr = r.TF.PushState(pctx, errored); pushErr == nil {
			break
		}
		select {
		case <-pctx.Done():
		case <-time.After(2 * time.Second):
			continue
		}
		break
	}
	if pushErr == nil {
		os.Remove(errored)
		err := finishApply(ctx, r, rec, nil)
		return errors.Join(errors.New("terraform could not save the state when it applied (the state backend failed); tfgate pushed it (errored.tfstate) once the backend answered again: the state is saved. Check the apply's errors below, then plan again"), applyErr, err)
	}
	kept, keepErr := keepState(r, rec, errored)
	msg := fmt.Sprintf("%s: terraform changed the infrastructure but could not write the state to the backend, and tfgate could not push it either (tried for %s)", StateNotSaved, rec.pushWait)
	switch {
	case keepErr != nil:
		msg += fmt.Sprintf("; the state is still in %s/errored.tfstate in this checkout (tfgate could not keep it elsewhere: %v): save it before the runner goes", r.Project.Dir, keepErr)
	case rec.key != "":
		msg += fmt.Sprintf("; tfgate kept it, encrypted with TFGATE_PLAN_KEY, in %s (in GitHub Actions the action uploads it as the artifact tfgate-unsaved-state-<attempt>)", kept)
	default:
		msg += fmt.Sprintf("; tfgate kept it in %s, in clear text — it holds secrets (in GitHub Actions the action uploads it as the artifact tfgate-unsaved-state-<attempt>)", kept)
	}
	push := "`terraform state push errored.tfstate`"
	switch {
	case keepErr == nil && rec.key != "":
		push = "`age -d -o errored.tfstate " + filepath.Base(kept) + "` with the plan key, then " + push
	case keepErr == nil:
		push = "`terraform state push " + filepath.Base(kept) + "`"
	}
	msg += ". Recover: once the backend is up, push it (" + push + " in " + r.Project.Dir + " after `terraform init`; see docs/failure-modes.md), "
	if rec.name != "" {
		msg += "delete tfgate's record (`terraform workspace delete " + rec.name + "`), then plan again. Until then every apply of this state is refused"
	} else {
		msg += "then plan again. Do not re-run this apply: " + rec.none + ", so tfgate cannot refuse it"
	}
	return errors.Join(errors.New(msg), applyErr, pushErr)
}

// keepState moves an unsaved state out of the checkout into keepDir, encrypted with the
// plan key when there is one, and returns where.
func keepState(r *stage.ProjectRun, rec *applyRecord, errored string) (string, error) {
	if err := os.MkdirAll(rec.keepDir, 0o700); err != nil {
		return "", err
	}
	data, err := os.ReadFile(errored)
	if err != nil {
		return "", err
	}
	ws := r.Project.Workspace
	if ws == "" {
		ws = "default"
	}
	base := safeName.ReplaceAllString(r.Project.Name+"."+ws, "_") + ".errored.tfstate"
	path := filepath.Join(rec.keepDir, base)
	if rec.key != "" {
		path += ".age"
		if data, err = encryptState(data, rec.key); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	// The copy in the checkout would be lost with the runner and holds secrets.
	if err := os.Remove(errored); err != nil {
		return path, err
	}
	return path, nil
}

var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// encryptState encrypts a state with age's passphrase (scrypt) recipient, as the bundles
// are: `age -d FILE` with the plan key opens it.
func encryptState(data []byte, key string) ([]byte, error) {
	rcpt, err := age.NewScryptRecipient(key)
	if err != nil {
		return nil, err
	}
	rcpt.SetWorkFactor(bundle.WorkFactor)
	var buf strings.Builder
	w, err := age.Encrypt(&buf, rcpt)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return []byte(buf.String()), nil
}

// tfDir is the project's directory, where terraform runs (and writes errored.tfstate).
func tfDir(r *stage.ProjectRun) string {
	return r.WorkDir()
}

// stateNotes names, in the run's notes, every project applied without its state saved: the
// loudest place a report has.
func stateNotes(run *report.Run) {
	for _, p := range run.Projects {
		if strings.HasPrefix(p.Error, StateNotSaved) {
			run.Notes = append(run.Notes, fmt.Sprintf("⚠️ %s: %s. Its state is kept outside the checkout; see the project's error for where and how to push it.", p.Name, strings.ToUpper(StateNotSaved[:1])+StateNotSaved[1:]))
		}
	}
}

// newRecord is the apply record of target t, before the apply.
func (a *review) newRecord(t *target) *applyRecord {
	wait := a.req.StatePushWait
	if wait <= 0 {
		wait = DefaultStatePushWait
	}
	dir := a.req.UnsavedStateDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tfgate-unsaved-state")
	}
	return &applyRecord{planSum: t.opened.Manifest.PlanSHA256, keepDir: dir, key: a.req.PlanKey, pushWait: wait}
}
