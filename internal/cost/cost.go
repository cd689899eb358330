// Package cost prices a plan: a monthly cost before and after it, per project, from a
// price catalogue kept with the policies (data.tfgate.prices) or from an Infracost JSON
// breakdown. Money is counted in cents, and a resource that cannot be priced is listed as
// unpriced with the reason, never counted as zero.
package cost

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/tfgate/tfgate/internal/secret"
)

// Where a cost came from.
const (
	SourceCatalogue = "catalogue"
	SourceInfracost = "infracost"
)

// Cost is one project's monthly cost before and after its plan.
type Cost struct {
	Source   string     `json:"source"` // SourceCatalogue or SourceInfracost
	Currency string     `json:"currency"`
	Before   Money      `json:"monthly_before"` // the priced resources as they are
	After    Money      `json:"monthly_after"`  // as the plan leaves them
	Priced   []Priced   `json:"priced"`
	Unpriced []Unpriced `json:"unpriced"`
}

// Priced is one resource's monthly price before and after the plan (0 on a side where it
// does not exist).
type Priced struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	Before  Money  `json:"before"`
	After   Money  `json:"after"`
}

// Unpriced is a resource (or, from Infracost, a resource type) the source could not price.
type Unpriced struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
}

// Delta is the change of the monthly cost.
func (c *Cost) Delta() Money { return c.After - c.Before }

// Masked returns c with the reasons (which may quote plan values) masked by m.
func (c *Cost) Masked(m *secret.Masker) *Cost {
	if c == nil || m == nil {
		return c
	}
	out := *c
	out.Unpriced = make([]Unpriced, len(c.Unpriced))
	for i, u := range c.Unpriced {
		u.Reason = m.String(u.Reason)
		out.Unpriced[i] = u
	}
	return &out
}

// Term is the cost as policies read it, input.cost: amounts are numbers in the currency's
// units (420.5), exact decimals.
func (c *Cost) Term() *ast.Term {
	priced := make([]*ast.Term, len(c.Priced))
	for i, p := range c.Priced {
		priced[i] = ast.ObjectTerm(
			kv("address", ast.StringTerm(p.Address)), kv("type", ast.StringTerm(p.Type)),
			kv("before", p.Before.term()), kv("after", p.After.term()))
	}
	unpriced := make([]*ast.Term, len(c.Unpriced))
	for i, u := range c.Unpriced {
		unpriced[i] = ast.ObjectTerm(
			kv("address", ast.StringTerm(u.Address)), kv("type", ast.StringTerm(u.Type)), kv("reason", ast.StringTerm(u.Reason)))
	}
	return ast.ObjectTerm(
		kv("source", ast.StringTerm(c.Source)),
		kv("currency", ast.StringTerm(c.Currency)),
		kv("monthly_before", c.Before.term()),
		kv("monthly_after", c.After.term()),
		kv("monthly_delta", c.Delta().term()),
		kv("priced", ast.ArrayTerm(priced...)),
		kv("unpriced", ast.ArrayTerm(unpriced...)),
	)
}

// term is the amount as an exact Rego number: 420, 420.5, -0.07.
func (m Money) term() *ast.Term {
	s := m.Plain()
	s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		s = "0"
	}
	return ast.NewTerm(ast.Number(s))
}

func kv(k string, v *ast.Term) [2]*ast.Term { return [2]*ast.Term{ast.StringTerm(k), v} }

// Input returns the plan input with input.cost set to c (the plan itself is not changed;
// terraform's plan JSON has no "cost" member). A nil c leaves the input as it is: policies
// must guard their reads of input.cost.
func Input(plan ast.Value, c *Cost) ast.Value {
	obj, ok := plan.(ast.Object)
	if c == nil || !ok {
		return plan
	}
	out := ast.NewObject()
	obj.Foreach(func(k, v *ast.Term) {
		if k.Value.Compare(ast.String("cost")) != 0 {
			out.Insert(k, v)
		}
	})
	out.Insert(ast.StringTerm("cost"), c.Term())
	return out
}
