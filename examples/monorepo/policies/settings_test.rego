package tfgate.rules.settings_test

import data.tfgate.rules.settings as policy

# valid sets every documented setting; tests replace one or more of them.
valid := {
	"allow_delete": ["module.legacy.*", `aws_db_instance.main["eu"]`],
	"protected_types": ["terraform_data"],
	"protected_addresses": ["*.vpc"],
	"required_tags": ["owner", "cost-center"],
	"allow_public": [],
	"allow_unencrypted": ["aws_ebs_volume.scratch"],
	"admin_ports": [22, 3389, 5432],
	"public_prefix_max": 8,
	"public_prefix_max_ipv6": 16,
	"change_limits": {"warn_above": 25, "deny_above": 100, "projects": {"envs/prod/*": {"warn_above": 5, "deny_above": 30}}},
	"allowed_instance_types": {"aws": ["t3.*"], "google": ["e2-*"], "azure": ["Standard_B*"]},
	"approval": {
		"prod_projects": ["envs/prod/*"], "prod_destroy_required": 2, "prod_destroy_teams": ["acme/platform"],
		"tags_only_required": 1, "finops_teams": ["acme/finops"], "finops_monthly_above": 250.5,
	},
	"finops": {"max_resource_monthly": 500, "production": ["envs/prod/*"]},
}

# deny evaluates the policy with the valid settings updated by s, ignoring
# any settings file next to the policies.
deny(s) := result if {
	v := {k: x | some k, _ in valid; x := object.get(s, k, valid[k])}
	result := policy.deny with data.tfgate.allow_delete as v.allow_delete
		with data.tfgate.protected_types as v.protected_types
		with data.tfgate.protected_addresses as v.protected_addresses
		with data.tfgate.required_tags as v.required_tags
		with data.tfgate.allow_public as v.allow_public
		with data.tfgate.allow_unencrypted as v.allow_unencrypted
		with data.tfgate.admin_ports as v.admin_ports
		with data.tfgate.public_prefix_max as v.public_prefix_max
		with data.tfgate.public_prefix_max_ipv6 as v.public_prefix_max_ipv6
		with data.tfgate.change_limits as v.change_limits
		with data.tfgate.allowed_instance_types as v.allowed_instance_types
		with data.tfgate.approval as v.approval
		with data.tfgate.finops as v.finops
}

messages(s) := {f.msg | some f in deny(s)}

settings(s) := {f.setting | some f in deny(s)}

fix := "; fix the settings file (until then every plan is denied)"

# The settings in effect (none, or the file next to the policies) are valid:
# `tfgate policy test` fails on a malformed settings file, and says why.
test_configured_settings_are_valid if {
	msgs := {f.msg | some f in policy.deny}
	every msg in msgs {
		print(msg)
	}
	count(msgs) == 0
}

test_valid_settings_pass if {
	count(deny({})) == 0
	count(deny({
		"allow_delete": [], "required_tags": [], "admin_ports": [],
		"public_prefix_max": 0, "public_prefix_max_ipv6": 128,
		"change_limits": {}, "allowed_instance_types": {},
	})) == 0
	count(deny({"change_limits": {"projects": {}}, "public_prefix_max": 32, "admin_ports": [0, 65535]})) == 0
}

test_admin_ports_of_strings if {
	messages({"admin_ports": ["22", "3389"]}) == {concat("", [
		`data.tfgate.admin_ports must be a list of port numbers (0-65535), got ["22","3389"], whose item 0 is "22" (a string)`,
		fix,
	])}
}

test_admin_ports_not_a_list if {
	messages({"admin_ports": 22}) == {concat("", [
		"data.tfgate.admin_ports must be a list of port numbers (0-65535), got 22 (a number)",
		fix,
	])}
}

test_admin_ports_out_of_range if {
	settings({"admin_ports": [22, 70000]}) == {"data.tfgate.admin_ports"}
	settings({"admin_ports": [22.5]}) == {"data.tfgate.admin_ports"}
	settings({"admin_ports": [-1]}) == {"data.tfgate.admin_ports"}
	some m in messages({"admin_ports": [22, 70000]})
	contains(m, "got [22,70000], whose item 1 is 70000 (a number)")
}

test_string_lists if {
	messages({"required_tags": "owner"}) == {concat("", [
		`data.tfgate.required_tags must be a list of strings, got "owner" (a string)`,
		fix,
	])}
	every name in ["allow_delete", "protected_types", "protected_addresses", "required_tags", "allow_public", "allow_unencrypted"] {
		settings({name: "x"}) == {sprintf("data.tfgate.%s", [name])}
		settings({name: ["x", 1]}) == {sprintf("data.tfgate.%s", [name])}
		settings({name: {"x": true}}) == {sprintf("data.tfgate.%s", [name])}
	}
	settings({"protected_types": "aws_instance"}) == {"data.tfgate.protected_types"}
}

# `allow_delete:` with nothing after it is null in YAML, not an empty list.
test_null_is_not_a_value if {
	messages({"allow_delete": null}) == {concat("", ["data.tfgate.allow_delete must be a list of strings, got null (no value)", fix])}
}

test_change_limits if {
	messages({"change_limits": {"deny_above": "50"}}) == {concat("", [
		`data.tfgate.change_limits.deny_above must be a number, got "50" (a string)`,
		fix,
	])}
	settings({"change_limits": 50}) == {"data.tfgate.change_limits"}
	settings({"change_limits": {"warn_above": null, "deny_abov": 5}}) == {"data.tfgate.change_limits.warn_above", "data.tfgate.change_limits.deny_abov"}
	messages({"change_limits": {"deny_abov": 5}}) == {concat("", [
		"data.tfgate.change_limits.deny_abov is not a setting (use deny_above, projects, warn_above)",
		fix,
	])}
}

test_project_limits if {
	projects := {
		"envs/prod/*": {"deny_above": "30"},
		"envs/dev/*": 5,
		"envs/qa/*": {"warn_abov": 1},
	}
	settings({"change_limits": {"projects": projects}}) == {
		`data.tfgate.change_limits.projects["envs/prod/*"].deny_above`,
		`data.tfgate.change_limits.projects["envs/dev/*"]`,
		`data.tfgate.change_limits.projects["envs/qa/*"].warn_abov`,
	}
	settings({"change_limits": {"projects": ["envs/prod/*"]}}) == {"data.tfgate.change_limits.projects"}
	some m in messages({"change_limits": {"projects": {"envs/dev/*": 5}}})
	m == concat("", [
		`data.tfgate.change_limits.projects["envs/dev/*"] must be an object (warn_above, deny_above), got 5 (a number)`,
		fix,
	])
}

test_allowed_instance_types if {
	settings({"allowed_instance_types": ["t3.*"]}) == {"data.tfgate.allowed_instance_types"}
	messages({"allowed_instance_types": {"gcp": ["e2-*"]}}) == {concat("", [
		"data.tfgate.allowed_instance_types.gcp is not a cloud tfgate knows (aws, google, azure)",
		fix,
	])}
	messages({"allowed_instance_types": {"aws": "t3.*"}}) == {concat("", [
		`data.tfgate.allowed_instance_types.aws must be a list of strings, got "t3.*" (a string)`,
		fix,
	])}
	settings({"allowed_instance_types": {"aws": ["t3.*", 5]}}) == {"data.tfgate.allowed_instance_types.aws"}
}

test_approval if {
	count(deny({"approval": {}})) == 0
	settings({"approval": ["x"]}) == {"data.tfgate.approval"}
	messages({"approval": {"tags_only": 1}}) == {concat("", [
		"data.tfgate.approval.tags_only is not a setting (use finops_monthly_above, finops_teams, ",
		"prod_destroy_required, prod_destroy_teams, prod_projects, tags_only_required)",
		fix,
	])}
	messages({"approval": {"prod_destroy_required": "2"}}) == {concat("", [
		`data.tfgate.approval.prod_destroy_required must be a whole number from 0 to 100, got "2" (a string)`,
		fix,
	])}
	settings({"approval": {"tags_only_required": 1.5}}) == {"data.tfgate.approval.tags_only_required"}
	settings({"approval": {"prod_destroy_teams": "acme/platform"}}) == {"data.tfgate.approval.prod_destroy_teams"}
	settings({"approval": {"prod_projects": ["a", 1]}}) == {"data.tfgate.approval.prod_projects"}
	settings({"approval": {"finops_monthly_above": "100"}}) == {"data.tfgate.approval.finops_monthly_above"}
}

test_prefix_limits if {
	messages({"public_prefix_max": "8"}) == {concat("", [
		`data.tfgate.public_prefix_max must be a whole number from 0 to 32, got "8" (a string)`,
		fix,
	])}
	settings({"public_prefix_max": 33}) == {"data.tfgate.public_prefix_max"}
	settings({"public_prefix_max": 8.5}) == {"data.tfgate.public_prefix_max"}
	settings({"public_prefix_max_ipv6": 129}) == {"data.tfgate.public_prefix_max_ipv6"}
	settings({"public_prefix_max_ipv6": [16]}) == {"data.tfgate.public_prefix_max_ipv6"}
}

test_every_problem_is_reported if {
	s := {"admin_ports": 22, "required_tags": "owner", "change_limits": {"deny_above": "50"}}
	settings(s) == {"data.tfgate.admin_ports", "data.tfgate.required_tags", "data.tfgate.change_limits.deny_above"}
}

test_long_values_are_cut if {
	some m in messages({"allow_delete": numbers.range(1, 100)})
	startswith(m, "data.tfgate.allow_delete must be a list of strings, got [1,2,3,")
	contains(m, "...")
	contains(m, ", whose item 0 is 1 (a number)")
	count(m) < 220
}

test_finops_settings if {
	count(deny({"finops": {}})) == 0
	count(deny({"finops": {"max_resource_monthly": 0.5, "production": []}})) == 0
	settings({"finops": ["x"]}) == {"data.tfgate.finops"}
	settings({"finops": {"max_resource_monthly": "500"}}) == {"data.tfgate.finops.max_resource_monthly"}
	settings({"finops": {"max_resource_monthly": -1}}) == {"data.tfgate.finops.max_resource_monthly"}
	settings({"finops": {"production": "envs/prod/*"}}) == {"data.tfgate.finops.production"}
	settings({"finops": {"prod": ["x"]}}) == {"data.tfgate.finops.prod"}
	messages({"finops": {"max_resource_monthly": "500"}}) == {concat("", ["data.tfgate.finops.max_resource_monthly must be a number, at least 0, got \"500\" (a string)", fix])}
}
