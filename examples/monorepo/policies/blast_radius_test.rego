package tfgate.rules.blast_radius_test

import data.tfgate.rules.blast_radius as policy

changes(n, actions) := [{
	"address": sprintf("terraform_data.r%d", [i]),
	"mode": "managed",
	"type": "terraform_data",
	"name": sprintf("r%d", [i]),
	"change": {"actions": actions},
} |
	some i in numbers.range(1, n)
]

plan(n) := {"resource_changes": changes(n, ["update"])}

# deny and warn evaluate the policy with settings s (missing keys: not
# configured), ignoring any settings file next to the policies.
deny(p, s) := result if {
	result := policy.deny with input as p
		with data.tfgate.change_limits as object.get(s, "change_limits", {})
		with data.tfgate.project as object.get(s, "project", {})
}

warn(p, s) := result if {
	result := policy.warn with input as p
		with data.tfgate.change_limits as object.get(s, "change_limits", {})
		with data.tfgate.project as object.get(s, "project", {})
}

test_small_plan_passes if {
	count(warn(plan(25), {})) == 0
	count(deny(plan(25), {})) == 0
}

test_warn_above_default if {
	result := warn(plan(26), {})
	count(result) == 1
	some f in result
	f.msg == "26 resources change (warning above 25); review carefully"
	f.changes == 26
	f.limit == 25
	count(deny(plan(26), {})) == 0
}

test_deny_above_default if {
	result := deny(plan(101), {})
	count(result) == 1
	some f in result
	startswith(f.msg, "101 resources change (more than 100); split the change")
	count(warn(plan(101), {})) == 0
}

test_no_ops_and_reads_do_not_count if {
	p := {"resource_changes": array.concat(changes(30, ["no-op"]), changes(30, ["read"]))}
	count(warn(p, {})) == 0
}

test_replacements_count_once if {
	p := {"resource_changes": changes(26, ["delete", "create"])}
	count(warn(p, {})) == 1
}

test_limits_from_data if {
	s := {"change_limits": {"warn_above": 1, "deny_above": 2}}
	count(warn(plan(2), s)) == 1
	count(deny(plan(2), s)) == 0
	count(deny(plan(3), s)) == 1
}

test_project_limits_and_name_in_message if {
	limits := {"projects": {"envs/prod/*": {"warn_above": 1}, "envs/prod/app": {"warn_above": 3}}}
	result := warn(plan(2), {"change_limits": limits, "project": {"name": "envs/prod/app"}})
	some f in result
	f.msg == "2 resources change in envs/prod/app (warning above 1); review carefully"
	count(warn(plan(2), {"change_limits": limits, "project": {"name": "envs/dev/app"}})) == 0
}

test_project_glob_does_not_cross_slashes if {
	limits := {"projects": {"envs/*": {"deny_above": 0}}}
	count(deny(plan(1), {"change_limits": limits, "project": {"name": "envs/prod/app"}})) == 0
	count(deny(plan(1), {"change_limits": limits, "project": {"name": "envs/app"}})) == 1
}

# A numeric string is read as its number; a limit that is no number falls
# back to the default. Neither switches the check off (in Rego 51 > "50" is
# false); the settings policy denies both.
test_malformed_limits_still_limit if {
	count(deny(plan(51), {"change_limits": {"deny_above": "50"}})) == 1
	count(deny(plan(50), {"change_limits": {"deny_above": "50"}})) == 0
	count(warn(plan(6), {"change_limits": {"warn_above": "5"}})) == 1
	count(deny(plan(101), {"change_limits": {"deny_above": "fifty"}})) == 1
	count(deny(plan(101), {"change_limits": {"deny_above": null}})) == 1
	count(deny(plan(101), {"change_limits": "100"})) == 1
	count(warn(plan(26), {"change_limits": ["warn_above", 1]})) == 1
}

test_malformed_project_limits if {
	project := {"name": "envs/prod/app"}
	count(deny(plan(2), {"change_limits": {"projects": {"envs/prod/*": {"deny_above": "1"}}}, "project": project})) == 1
	count(deny(plan(101), {"change_limits": {"projects": {"envs/prod/*": 1}}, "project": project})) == 1
	count(deny(plan(101), {"change_limits": {"projects": ["envs/prod/*"]}, "project": project})) == 1
	count(deny(plan(101), {"change_limits": {"projects": {"envs/prod/*": {"deny_above": "x"}}}, "project": project})) == 1
}
