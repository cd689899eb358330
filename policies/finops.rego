# METADATA
# title: FinOps (cost)
# description: |
#   Deny, outside production, a change that makes one resource cost more
#   than a monthly limit: an oversized instance type (or anything else
#   priced that high) is a production decision. Reads input.cost, which
#   tfgate adds when a price catalogue (data.tfgate.prices) or an Infracost
#   file prices the plan (docs/cost.md); without one there is nothing to
#   judge. Only resources whose price rises are judged, so an existing
#   large resource does not block unrelated changes; unpriced resources are
#   not judged (the comment lists them).
#
#   Settings (optional), data.tfgate.finops:
#     max_resource_monthly: 500     # the limit for one resource, in the catalogue's currency
#     production: ["*prod*"]        # project name globs (`*` matches `/` too)
package tfgate.rules.finops

import data.tfgate.lib

deny contains {"msg": msg, "address": p.address, "monthly": p.after, "limit": limit} if {
	not production
	some p in priced
	p.after > p.before
	p.after > limit
	msg := sprintf(
		"%s costs %v %v a month after this change (%v before), above the %v limit for one resource outside production (project %s); pick a smaller size, or raise data.tfgate.finops.max_resource_monthly",
		[p.address, input.cost.currency, p.after, p.before, limit, data.tfgate.project.name],
	)
}

# priced is input.cost.priced, empty when the plan was not priced.
priced := input.cost.priced if is_array(input.cost.priced)

else := []

# A limit of the wrong type falls back to the default (the settings policy
# denies it meanwhile).
limit := lib.number(object.get(settings, "max_resource_monthly", 500), 500)

settings := data.tfgate.finops if is_object(data.tfgate.finops)

else := {}

default_production := ["*prod*"]

# A malformed production list names no project production: the check
# applies everywhere, stricter, never weaker.
production_patterns := lib.allow_list(settings.production) if {
	"production" in object.keys(settings)
} else := default_production

production if {
	some pattern in production_patterns
	glob.match(pattern, [], data.tfgate.project.name)
}
