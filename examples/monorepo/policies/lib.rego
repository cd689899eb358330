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

# matches_any holds when address matches one of the patterns: it is the
# pattern itself, or matches it as a glob ("module.legacy.*",
# "aws_s3_bucket.logs", "*.audit[*]"). Only `*` (any characters, dots and
# brackets included), `?` (one character) and `{a,b}` (alternatives) are
# special; `[` and `]` are literal, since every indexed address has them
# (module.app.aws_db_instance.main["eu"]), and `\` escapes the next
# character. Entries that are not strings are ignored (the settings policy
# denies them).
matches_any(patterns, address) if address in patterns

matches_any(patterns, address) if {
	some p in patterns
	is_string(p)
	glob.match(glob_pattern(p), null, address)
}

# glob_pattern escapes the brackets of an address pattern for glob.match,
# where `[` opens a character class. Escape sequences the pattern already
# has (`\[`, `\\`) are kept as they are.
glob_pattern(pattern) := strings.replace_n(
	{`\\`: `\\`, `\[`: `\[`, `\]`: `\]`, "[": `\[`, "]": `\]`},
	pattern,
)

# verb says what a deleting change does to the resource.
verb(rc) := "replacing" if {
	replaces(rc)
} else := "deleting"

# Reading settings. A setting of the wrong type (admin_ports: ["22"],
# required_tags: owner) must never switch a check off: the settings policy
# denies it, and meanwhile the policies read what they safely can with the
# helpers below.

# allow_list returns the strings of an allow-list setting (patterns that
# exempt resources from a check). Anything but an array exempts nothing, so
# a malformed allow-list makes a policy stricter, never weaker.
allow_list(setting) := [s |
	is_array(setting)
	some s in setting
	is_string(s)
]

# strings_or returns setting when it is a list of strings, else the default
# and whatever strings setting holds (a bare string counts), sorted, so that
# a malformed setting checks at least what the default checks.
strings_or(setting, default_value) := setting if {
	is_strings(setting)
} else := sort({s | some s in array.concat(default_value, strings_in(setting))})

# numbers_or returns setting when it is a list of numbers, else the default
# and whatever numbers setting holds (numeric strings such as "22" and a
# bare number or string count), sorted.
numbers_or(setting, default_value) := setting if {
	is_numbers(setting)
} else := sort({n | some n in array.concat(default_value, numbers_in(setting))})

# number returns setting when it is a number, the number a numeric string
# ("50") spells, else fallback.
number(setting, fallback) := setting if {
	is_number(setting)
} else := to_number(setting) if {
	numeric(setting)
} else := fallback

is_strings(x) if {
	is_array(x)
	every e in x {
		is_string(e)
	}
}

is_numbers(x) if {
	is_array(x)
	every e in x {
		is_number(e)
	}
}

strings_in(x) := [x] if {
	is_string(x)
} else := allow_list(x)

numbers_in(x) := [n |
	some e in array.concat([x | not is_array(x)], list(x))
	n := number(e, null)
	is_number(n)
]

numeric(x) if {
	is_string(x)
	regex.match(`^-?[0-9]+(\.[0-9]+)?$`, x)
}

list(x) := x if {
	is_array(x)
} else := []
