# METADATA
# title: Approval
# description: |
#   How many approvals a plan needs, and from whom (docs/approval-policies.md):
#   a plan that destroys in a production project needs 2 approvals (and the
#   prod_destroy_teams); an increase of the monthly cost above a threshold
#   needs an approval from the FinOps team; a tags-only change may go with
#   fewer approvals than approval.min_approvals, only when
#   tags_only_required is set.
#
#   Settings (all optional), in data.tfgate.approval:
#     prod_projects          project name or directory globs that are production
#                            (default: a path segment "prod" or "production")
#     prod_destroy_required  approvals for a production plan that destroys (default 2)
#     prod_destroy_teams     owners ("org/team" or a login) who must approve it (default none)
#     tags_only_required     approvals for a tags-only change (default: not lowered)
#     finops_teams           owners who must approve a cost increase (default none: off)
#     finops_monthly_above   the monthly increase that needs them (default 100)
package tfgate.rules.approval

import data.tfgate.lib

approval contains {"required": n, "teams": teams, "reasons": ["prod", sprintf("destroys %d", [risk.destroys])]} if {
	production
	risk.destroys > 0
	n := lib.number(object.get(settings, "prod_destroy_required", 2), 2)
	teams := lib.allow_list(object.get(settings, "prod_destroy_teams", []))
}

# Lowering: tfgate lowers the count only when every approval object says lower,
# so a tags-only plan that is also a FinOps case keeps the configured count.
approval contains {"required": n, "lower": true, "reasons": ["tags only"]} if {
	risk.tags_only
	n := lib.number(object.get(settings, "tags_only_required", null), null)
	is_number(n)
}

approval contains {"required": 0, "teams": teams, "reasons": [increase]} if {
	teams := lib.allow_list(object.get(settings, "finops_teams", []))
	count(teams) > 0
	delta := input.cost.monthly_delta
	is_number(delta)
	delta > lib.number(object.get(settings, "finops_monthly_above", 100), 100)
	increase := money(delta, object.get(input.cost, "currency", "USD"))
}

risk := data.tfgate.risk

default settings := {}

settings := data.tfgate.approval if is_object(data.tfgate.approval)

# production holds for a project whose name or directory matches prod_projects,
# or, without that setting, has a path segment "prod" or "production".
production if {
	some pattern in lib.allow_list(object.get(settings, "prod_projects", []))
	some name in [data.tfgate.project.name, data.tfgate.project.dir]
	glob.match(pattern, ["/"], name)
}

production if {
	not "prod_projects" in object.keys(settings)
	some name in [data.tfgate.project.name, data.tfgate.project.dir]
	some segment in split(name, "/")
	segment in {"prod", "production"}
}

# money is a monthly increase for people: "+$420/month", "+380 EUR/month".
money(delta, "USD") := sprintf("+$%d/month", [round(delta)])

money(delta, currency) := sprintf("+%d %s/month", [round(delta), currency]) if currency != "USD"
