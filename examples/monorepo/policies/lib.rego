# METADATA
# title: tfgate policy helpers
# description: |
#   Shared helpers for the tfgate default policies. They read `terraform show -json`
#   plans (input) and the settings under data.tfgate (see README.md).
package tfgate.lib

# changes lists the managed resource changes that do something: every
# action except no-op (and read, which only data sources have). Policies
# iterate it, or the narrower lists below, rather than input.resource_changes.
# (Arrays, not sets: iterating a set of 10,000 objects sorts it first.)
changes := [rc |
	some rc in input.resource_changes
	rc.mode == "managed"
	rc.change.actions != ["no-op"]
	rc.change.actions != ["read"]
]

# deleted lists the changes that destroy an object: deletes and replacements.
deleted := [rc |
	some rc in changes
	"delete" in rc.change.actions
]

# written lists the changes that leave an object described by change.after:
# creates, updates and replacements.
written := [rc |
	some rc in changes
	is_object(rc.change.after)
	count([a | some a in rc.change.actions; a in {"create", "update"}]) > 0
]

# deletes holds when a change destroys the existing object: a delete, or
# either order of replacement.
deletes(rc) if "delete" in rc.change.actions

replaces(rc) if {
	"delete" in rc.change.actions
	"create" in rc.change.actions
}

# writes holds when the change leaves an object described by change.after.
writes(rc) if {
	some a in rc.change.actions
	a in {"create", "update"}
	is_object(rc.change.after)
}

# matches_any holds when address matches one of the glob patterns
# ("module.legacy.*", "aws_s3_bucket.logs", "*.audit[*]"). Only `*`, `?`,
# `[...]` and `{a,b}` are special; `*` spans dots and brackets.
matches_any(patterns, address) if {
	some p in patterns
	glob.match(p, null, address)
}

# verb says what a deleting change does to the resource.
verb(rc) := "replacing" if {
	replaces(rc)
} else := "deleting"
