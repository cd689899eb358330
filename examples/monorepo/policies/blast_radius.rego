# METADATA
# title: Blast radius
# description: |
#   Warn when a plan changes more than warn_above resources and deny when it
#   changes more than deny_above: large plans are hard to review and risky to apply.
#
#   Settings (all optional), in data.tfgate.change_limits:
#     warn_above  default 25
#     deny_above  default 100
#     projects    {"<project name glob>": {"warn_above": N, "deny_above": M}}
#                 limits for matching projects (data.tfgate.project.name); when
#                 several patterns match, the lowest limit wins.
package tfgate.rules.blast_radius

import data.tfgate.lib

deny contains {"msg": msg, "changes": changed, "limit": limit} if {
	limit := limit_for("deny_above", 100)
	changed > limit
	msg := sprintf(
		"%d resources change%s (more than %d); split the change, or raise data.tfgate.change_limits.deny_above",
		[changed, where, limit],
	)
}

warn contains {"msg": msg, "changes": changed, "limit": limit} if {
	limit := limit_for("warn_above", 25)
	changed > limit
	changed <= limit_for("deny_above", 100)
	msg := sprintf("%d resources change%s (warning above %d); review carefully", [changed, where, limit])
}

changed := count(lib.changes)

default where := ""

where := sprintf(" in %s", [data.tfgate.project.name]) if data.tfgate.project.name != ""

default limits := {}

limits := data.tfgate.change_limits if is_object(data.tfgate.change_limits)

default projects := {}

projects := limits.projects if is_object(limits.projects)

# limit_for returns the lowest limit set for this project by a matching
# pattern, else the global one, else fallback. A limit that is not a number
# (the settings policy denies it) is read as the number a numeric string
# spells ("50"), else ignored, so it never switches the check off: comparing
# a number with a string in Rego is not an error, just never true.
limit_for(key, fallback) := min(project_limits) if {
	project_limits := [n |
		some pattern, l in projects
		is_object(l)
		glob.match(pattern, ["/"], data.tfgate.project.name)
		n := lib.number(l[key], null)
		is_number(n)
	]
	count(project_limits) > 0
} else := lib.number(object.get(limits, key, fallback), fallback)
