package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Infracost is an Infracost JSON breakdown (`infracost breakdown --format json`, with a
// past breakdown: `infracost diff`, or breakdown --compare-to): one cost per Infracost
// project, matched to tfgate's projects by directory and workspace.
type Infracost struct {
	File     string
	Currency string
	Projects []InfracostProject
}

// InfracostProject is one Infracost project's cost, and where it was planned.
type InfracostProject struct {
	Path      string // slash-separated, relative to the repository root ("." for the root)
	Workspace string // "" when Infracost does not say
	Cost      *Cost
}

type icFile struct {
	Currency string `json:"currency"`
	Projects []struct {
		Name     string `json:"name"`
		Metadata struct {
			Path      string `json:"path"`
			Workspace string `json:"terraformWorkspace"`
		} `json:"metadata"`
		PastBreakdown *icBreakdown `json:"pastBreakdown"`
		Breakdown     *icBreakdown `json:"breakdown"`
		Summary       struct {
			Unsupported map[string]int64 `json:"unsupportedResourceCounts"`
		} `json:"summary"`
	} `json:"projects"`
}

type icBreakdown struct {
	Resources []struct {
		Name         string  `json:"name"`
		ResourceType string  `json:"resourceType"`
		MonthlyCost  *string `json:"monthlyCost"`
	} `json:"resources"`
	TotalMonthlyCost *string `json:"totalMonthlyCost"`
}

// maxInfracostFile bounds the file read (Infracost's breakdown of a large estate is a few
// megabytes).
const maxInfracostFile = 64 << 20

// ReadInfracost reads an Infracost JSON file. root is the repository root, for project
// paths Infracost wrote as absolute paths. Every problem names the file and the key.
func ReadInfracost(file string, data []byte, root string) (*Infracost, error) {
	if len(data) > maxInfracostFile {
		return nil, fmt.Errorf("%s: %d bytes is larger than an Infracost breakdown can be (at most %d)", file, len(data), maxInfracostFile)
	}
	var f icFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not an Infracost JSON breakdown: %w", file, err)
	}
	if !currencyCode.MatchString(f.Currency) {
		return nil, fmt.Errorf("%s: currency must be a currency code such as \"USD\", got %q", file, f.Currency)
	}
	out := &Infracost{File: file, Currency: f.Currency}
	for i, p := range f.Projects {
		key := fmt.Sprintf("%s: projects[%d]", file, i)
		if p.Breakdown == nil || p.PastBreakdown == nil {
			return nil, fmt.Errorf("%s (%s) has no breakdown and pastBreakdown: give tfgate the output of `infracost diff --format json` (or breakdown --compare-to), which prices the project before and after", key, p.Name)
		}
		dir, err := projectPath(p.Metadata.Path, root)
		if err != nil {
			return nil, fmt.Errorf("%s.metadata.path: %w", key, err)
		}
		c, err := icCost(key, f.Currency, p.PastBreakdown, p.Breakdown)
		if err != nil {
			return nil, err
		}
		for _, typ := range slices.Sorted(func(yield func(string) bool) {
			for t := range p.Summary.Unsupported {
				if !yield(t) {
					return
				}
			}
		}) {
			c.Unpriced = append(c.Unpriced, Unpriced{Type: typ,
				Reason: fmt.Sprintf("Infracost does not price %s (%d in the project)", typ, p.Summary.Unsupported[typ])})
		}
		out.Projects = append(out.Projects, InfracostProject{Path: dir, Workspace: p.Metadata.Workspace, Cost: c})
	}
	return out, nil
}

// icCost is one Infracost project's cost: the totals are Infracost's own, the resources
// are paired by address.
func icCost(key, currency string, past, now *icBreakdown) (*Cost, error) {
	c := &Cost{Source: SourceInfracost, Currency: currency, Priced: []Priced{}, Unpriced: []Unpriced{}}
	var err error
	if c.Before, err = icMoney(past.TotalMonthlyCost, key+".pastBreakdown.totalMonthlyCost"); err != nil {
		return nil, err
	}
	if c.After, err = icMoney(now.TotalMonthlyCost, key+".breakdown.totalMonthlyCost"); err != nil {
		return nil, err
	}
	before := map[string]*Money{}
	for j, r := range past.Resources {
		if r.MonthlyCost == nil {
			before[r.Name] = nil
			continue
		}
		m, err := icMoney(r.MonthlyCost, fmt.Sprintf("%s.pastBreakdown.resources[%d].monthlyCost", key, j))
		if err != nil {
			return nil, err
		}
		before[r.Name] = &m
	}
	seen := map[string]bool{}
	for j, r := range now.Resources {
		seen[r.Name] = true
		b, existed := before[r.Name]
		if r.MonthlyCost == nil || (existed && b == nil) {
			c.Unpriced = append(c.Unpriced, Unpriced{Address: r.Name, Type: r.ResourceType, Reason: "Infracost gives it no monthly cost (usage-based: give Infracost a usage file)"})
			continue
		}
		m, err := icMoney(r.MonthlyCost, fmt.Sprintf("%s.breakdown.resources[%d].monthlyCost", key, j))
		if err != nil {
			return nil, err
		}
		p := Priced{Address: r.Name, Type: r.ResourceType, After: m}
		if existed {
			p.Before = *b
		}
		c.Priced = append(c.Priced, p)
	}
	for _, r := range past.Resources {
		if !seen[r.Name] && before[r.Name] != nil {
			c.Priced = append(c.Priced, Priced{Address: r.Name, Type: r.ResourceType, Before: *before[r.Name]})
		}
	}
	return c, nil
}

// icMoney reads one of Infracost's decimal strings (null is no cost at all).
func icMoney(s *string, key string) (Money, error) {
	if s == nil {
		return 0, nil
	}
	m, err := parseMoney(*s, false)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return m, nil
}

// projectPath is Infracost's project path relative to the repository root.
func projectPath(p, root string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("is empty: run Infracost with --path set to the project's directory")
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("%s is outside the repository %s", p, root)
		}
		p = rel
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s is outside the repository", p)
	}
	return strings.TrimPrefix(clean, "./"), nil
}

// ForProject is the cost of the tfgate project in dir and workspace: nil when the file
// has no project there, an error when it has two.
func (ic *Infracost) ForProject(dir, workspace string) (*Cost, error) {
	dir = path.Clean(dir)
	var found *Cost
	for _, p := range ic.Projects {
		if p.Path != dir || (p.Workspace != "" && p.Workspace != workspace) {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%s has two projects for %s (workspace %s): give each project's cost once", ic.File, dir, workspace)
		}
		found = p.Cost
	}
	return found, nil
}
