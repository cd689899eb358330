# METADATA
# title: Settings
# description: |
#   Deny every plan while a documented setting under data.tfgate has the
#   wrong type: admin_ports: ["22"], required_tags: owner or
#   change_limits: {deny_above: "50"} would otherwise switch checks off
#   silently (in Rego, 51 > "50" is simply false). Fails closed: the plan is
#   denied until the settings file is fixed. The other policies still read
#   what they safely can, so their findings show too.
#
#   Unknown keys inside change_limits, its projects,
#   allowed_instance_types and approval are denied as well (a typo there would be
#   ignored); unknown top-level keys cannot be told apart from other data.
package tfgate.rules.settings

deny contains {"msg": msg, "setting": sprintf("data.tfgate.%s", [path])} if {
	some [path, problem] in problems
	msg := sprintf(
		"data.tfgate.%s %s; fix the settings file (until then every plan is denied)",
		[path, problem],
	)
}

# given holds [name, value] for each documented setting that is set. Each is
# read by its full path: reading data.tfgate as a whole would include the
# rules themselves.
given contains ["allow_delete", data.tfgate.allow_delete]

given contains ["protected_types", data.tfgate.protected_types]

given contains ["protected_addresses", data.tfgate.protected_addresses]

given contains ["required_tags", data.tfgate.required_tags]

given contains ["allow_public", data.tfgate.allow_public]

given contains ["allow_unencrypted", data.tfgate.allow_unencrypted]

given contains ["admin_ports", data.tfgate.admin_ports]

given contains ["public_prefix_max", data.tfgate.public_prefix_max]

given contains ["public_prefix_max_ipv6", data.tfgate.public_prefix_max_ipv6]

given contains ["change_limits", data.tfgate.change_limits]

given contains ["allowed_instance_types", data.tfgate.allowed_instance_types]

given contains ["approval", data.tfgate.approval]
given contains ["finops", data.tfgate.finops]

string_lists := {"allow_delete", "protected_types", "protected_addresses", "required_tags", "allow_public", "allow_unencrypted"}

# problems holds [path below data.tfgate, what is wrong].
problems contains [name, must("a list of strings", problem)] if {
	some [name, value] in given
	name in string_lists
	problem := list_problem(value, "string")
}

problems contains ["admin_ports", must("a list of port numbers (0-65535)", problem)] if {
	some [name, value] in given
	name == "admin_ports"
	problem := list_problem(value, "port")
}

problems contains [name, must(sprintf("a whole number from 0 to %d", [highest]), describe(value))] if {
	some [name, value] in given
	highest := {"public_prefix_max": 32, "public_prefix_max_ipv6": 128}[name]
	not whole_number(value, highest)
}

problems contains ["change_limits", must("an object (warn_above, deny_above, projects)", describe(value))] if {
	some [name, value] in given
	name == "change_limits"
	not is_object(value)
}

problems contains problem if {
	some [name, value] in given
	name == "change_limits"
	is_object(value)
	some problem in limits_problems("change_limits", value, {"warn_above", "deny_above", "projects"})
}

problems contains ["change_limits.projects", must("an object mapping project name globs to limits", describe(projects))] if {
	projects := data.tfgate.change_limits.projects
	not is_object(projects)
}

problems contains [path, must("an object (warn_above, deny_above)", describe(limits))] if {
	some pattern, limits in projects
	path := sprintf("change_limits.projects[%q]", [pattern])
	not is_object(limits)
}

problems contains problem if {
	some pattern, limits in projects
	is_object(limits)
	path := sprintf("change_limits.projects[%q]", [pattern])
	some problem in limits_problems(path, limits, {"warn_above", "deny_above"})
}

problems contains ["allowed_instance_types", must("an object of lists per cloud (aws, google, azure)", describe(value))] if {
	some [name, value] in given
	name == "allowed_instance_types"
	not is_object(value)
}

problems contains [sprintf("allowed_instance_types.%v", [cloud]), "is not a cloud tfgate knows (aws, google, azure)"] if {
	some cloud, _ in instance_types
	not cloud in {"aws", "google", "azure"}
}

problems contains [sprintf("allowed_instance_types.%v", [cloud]), must("a list of strings", problem)] if {
	some cloud, patterns in instance_types
	problem := list_problem(patterns, "string")
}

problems contains ["approval", must("an object of approval settings", describe(value))] if {
	some [name, value] in given
	name == "approval"
	not is_object(value)
}

problems contains [sprintf("approval.%v", [key]), problem] if {
	some key, value in approval_settings
	problem := approval_problem(key, value)
}

default approval_settings := {}

approval_settings := data.tfgate.approval if is_object(data.tfgate.approval)

approval_keys := {
	"prod_projects", "prod_destroy_required", "prod_destroy_teams",
	"tags_only_required", "finops_teams", "finops_monthly_above",
}

approval_problem(key, _) := sprintf("is not a setting (use %s)", [concat(", ", sort(approval_keys))]) if {
	not key in approval_keys
}

approval_problem(key, value) := must("a list of strings", problem) if {
	key in {"prod_projects", "prod_destroy_teams", "finops_teams"}
	problem := list_problem(value, "string")
}

approval_problem(key, value) := must("a whole number from 0 to 100", describe(value)) if {
	key in {"prod_destroy_required", "tags_only_required"}
	not whole_number(value, 100)
}

approval_problem("finops_monthly_above", value) := must("a number", describe(value)) if not is_number(value)

problems contains ["finops", must("an object (max_resource_monthly, production)", describe(value))] if {
	some [name, value] in given
	name == "finops"
	not is_object(value)
}

problems contains [sprintf("finops.%v", [key]), "is not a setting (use max_resource_monthly, production)"] if {
	some key, _ in finops
	not key in {"max_resource_monthly", "production"}
}

problems contains ["finops.max_resource_monthly", must("a number, at least 0", describe(value))] if {
	value := finops.max_resource_monthly
	not non_negative(value)
}

problems contains ["finops.production", must("a list of strings", problem)] if {
	problem := list_problem(finops.production, "string")
}

non_negative(x) if {
	is_number(x)
	x >= 0
}

default finops := {}

finops := data.tfgate.finops if is_object(data.tfgate.finops)

# projects and instance_types are the objects the rules above iterate, empty
# unless the setting is an object: an array's indexes are no project names
# or clouds (the type itself is reported above).
default projects := {}

projects := data.tfgate.change_limits.projects if is_object(data.tfgate.change_limits.projects)

default instance_types := {}

instance_types := data.tfgate.allowed_instance_types if is_object(data.tfgate.allowed_instance_types)

# limits_problems checks the limits object at path: numeric limits, known keys.
limits_problems(path, limits, known) := {p |
	some key, value in limits
	p := key_problem(path, key, value, known)
}

key_problem(path, key, value, known) := [sprintf("%s.%v", [path, key]), msg] if {
	not key in known
	msg := sprintf("is not a setting (use %s)", [concat(", ", sort(known))])
} else := [sprintf("%s.%v", [path, key]), must("a number", describe(value))] if {
	key != "projects"
	not is_number(value)
}

must(expected, got) := sprintf("must be %s, got %s", [expected, got])

# list_problem describes how value fails to be a list of kind ("string",
# "port"); it is undefined when value is one.
list_problem(value, kind) := describe(value) if {
	not is_array(value)
} else := sprintf("%s, whose item %d is %s", [short(value), i, describe(value[i])]) if {
	bad := [j | some j, e in value; not valid(kind, e)]
	count(bad) > 0
	i := bad[0]
}

valid("string", e) if is_string(e)

valid("port", e) if whole_number(e, 65535)

whole_number(x, highest) if {
	is_number(x)
	x == floor(x)
	x >= 0
	x <= highest
}

# describe shows a value and its type: "owner" (a string).
describe(value) := sprintf("%s (%s)", [short(value), type_names[type_name(value)]])

type_names := {
	"string": "a string",
	"number": "a number",
	"boolean": "a boolean",
	"null": "no value",
	"array": "a list",
	"object": "an object",
	"set": "a set",
}

# short is value as JSON, cut to keep messages readable.
short(value) := s if {
	s := json.marshal(value)
	count(s) <= 60
} else := concat("", [substring(json.marshal(value), 0, 57), "..."])
