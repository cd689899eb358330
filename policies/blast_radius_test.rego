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

test_small_plan_passes if {
	count(policy.warn) == 0 with input as plan(25)
	count(policy.deny) == 0 with input as plan(25)
}

test_warn_above_default if {
	result := policy.warn with input as plan(26)
	count(result) == 1
	some f in result
	f.msg == "26 resources change (warning above 25); review carefully"
	count(policy.deny) == 0 with input as plan(26)
}

test_deny_above_default if {
	result := policy.deny with input as plan(101)
	count(result) == 1
	some f in result
	startswith(f.msg, "101 resources change (more than 100)")
	count(policy.warn) == 0 with input as plan(101)
}

test_no_ops_and_reads_do_not_count if {
	p := {"resource_changes": array.concat(changes(30, ["no-op"]), changes(30, ["read"]))}
	count(policy.warn) == 0 with input as p
}

test_replacements_count_once if {
	p := {"resource_changes": changes(26, ["delete", "create"])}
	count(policy.warn) == 1 with input as p
}

test_limits_from_data if {
	limits := {"warn_above": 1, "deny_above": 2}
	count(policy.warn) == 1 with input as plan(2) with data.tfgate.change_limits as limits
	count(policy.deny) == 1 with input as plan(3) with data.tfgate.change_limits as limits
}

test_project_limits_and_name_in_message if {
	limits := {"projects": {"envs/prod/*": {"warn_above": 1}, "envs/prod/app": {"warn_above": 3}}}
	result := policy.warn with input as plan(2)
		with data.tfgate.change_limits as limits
		with data.tfgate.project as {"name": "envs/prod/app"}
	some f in result
	f.msg == "2 resources change in envs/prod/app (warning above 1); review carefully"
	count(policy.warn) == 0 with input as plan(2)
		with data.tfgate.change_limits as limits
		with data.tfgate.project as {"name": "envs/dev/app"}
}
