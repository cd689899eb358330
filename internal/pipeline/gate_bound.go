package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tfgate/tfgate/internal/bundle"
	"github.com/tfgate/tfgate/internal/gate"
)

// Which plan each approval was given on (gate/bound.go): GitHub's record of the
// publications of the judged plans (the artifacts of their name, listed by the fetch), and
// the manifests of the earlier ones that approvals which would count were given on — each
// downloaded once, and only those.

// planHistory is gate.Input.Plans for the approvals among reviews: nil when the store keeps
// no record (--plans DIR) or the plans judged are a merge queue's. What cannot be read is
// an error: the gate then refuses.
func (a *runFacts) planHistory(ctx context.Context, reviews []gate.Review, facts gate.Facts) (*gate.Plans, error) {
	h, ok := a.plans.(bundle.History)
	if !ok || a.queue != "" || !a.bundled() {
		return nil, nil
	}
	pubs := h.Published(a.want(a.pr.HeadSHA)) // the head's: a merge queue's commit (a.queue) is not bound
	if len(pubs) == 0 {
		return nil, fmt.Errorf("%s: fetched, but its publications are unknown", a.plans)
	}
	ps := &gate.Plans{Seen: map[int]gate.SeenPlan{}}
	for _, p := range pubs {
		ps.Published = append(ps.Published, p.CreatedAt)
	}
	var earlier []int // the earlier publications approvals were given on, each once
	author := strings.ToLower(a.pr.Author.Login)
	for key, r := range gate.Latest(reviews) {
		if strings.ToUpper(r.State) != gate.Approved || key == author || r.CommitID != a.pr.HeadSHA ||
			!gate.CanWrite(facts.Permissions[key]) {
			continue // it does not count whichever plan it saw
		}
		if i := gate.SawPlan(r.SubmittedAt, ps.Published); i >= 0 && i < len(pubs)-1 && !slices.Contains(earlier, i) {
			earlier = append(earlier, i)
		}
	}
	if len(earlier) == 0 {
		return ps, nil
	}
	scratch, err := os.MkdirTemp("", "tfgate-seen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	slices.Sort(earlier)
	for _, i := range earlier {
		if ps.Seen[i], err = readSeen(ctx, h, pubs[i], filepath.Join(scratch, strconv.Itoa(i))); err != nil {
			return nil, fmt.Errorf("read the plans approved before the current one (%s, published %s): %w",
				h, pubs[i].CreatedAt.Format(time.RFC3339), err)
		}
	}
	return ps, nil
}

// bundled reports whether any target has a bundle: only then were plans fetched.
func (a *runFacts) bundled() bool {
	return slices.ContainsFunc(a.targets, func(t target) bool { return t.bundle != nil })
}

// readSeen reads the manifests of publication p (downloaded into dest): each project's
// changes digest and counts. An expired one is unreadable, not an error.
func readSeen(ctx context.Context, h bundle.History, p bundle.Publication, dest string) (gate.SeenPlan, error) {
	if p.Expired {
		return gate.SeenPlan{Unreadable: "its artifact has expired"}, nil
	}
	dir, err := h.FetchPublished(ctx, p, dest)
	if err != nil {
		return gate.SeenPlan{}, err
	}
	dirs, err := bundle.List(ctx, dir)
	if err != nil {
		return gate.SeenPlan{}, err
	}
	seen := gate.SeenPlan{Projects: map[string]gate.PlanPrint{}}
	for _, d := range dirs {
		m, err := bundle.Read(ctx, d)
		if err != nil {
			return gate.SeenPlan{}, err
		}
		seen.Projects[m.Project] = gate.PlanPrint{Digest: m.ChangesDigest, Summary: m.Summary}
	}
	return seen, nil
}
