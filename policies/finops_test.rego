package tfgate.rules.finops_test

import data.tfgate.rules.finops as policy

cost(priced) := {"currency": "USD", "monthly_before": 70, "monthly_after": 560.64, "monthly_delta": 490.64, "priced": priced, "unpriced": []}

grow := {"address": "terraform_data.worker", "type": "terraform_data", "before": 70, "after": 560.64}

# deny evaluates the policy on project with finops settings, ignoring any
# settings file next to the policies.
deny(c, project, settings) := result if {
	result := policy.deny with input as {"resource_changes": [], "cost": c}
		with data.tfgate.project as {"name": project, "dir": project, "workspace": "default", "changed_files": []}
		with data.tfgate.finops as settings
}

test_oversized_outside_production_denied if {
	result := deny(cost([grow]), "envs/dev/app", {})
	count(result) == 1
	some f in result
	f.address == "terraform_data.worker"
	f.limit == 500
	f.msg == "terraform_data.worker costs USD 560.64 a month after this change (70 before), above the 500 limit for one resource outside production (project envs/dev/app); pick a smaller size, or raise data.tfgate.finops.max_resource_monthly"
}

test_production_allowed if {
	count(deny(cost([grow]), "envs/prod/app", {})) == 0
	count(deny(cost([grow]), "payments-production", {})) == 0
	count(deny(cost([grow]), "live/payments", {"production": ["live/*"]})) == 0
	count(deny(cost([grow]), "envs/prod/app", {"production": ["live/*"]})) == 1
}

test_within_limit_or_not_rising_allowed if {
	count(deny(cost([grow]), "envs/dev/app", {"max_resource_monthly": 600})) == 0
	count(deny(cost([{"address": "a", "type": "t", "before": 900, "after": 900}]), "envs/dev/app", {})) == 0
	count(deny(cost([{"address": "a", "type": "t", "before": 900, "after": 800}]), "envs/dev/app", {})) == 0
	count(deny(cost([{"address": "a", "type": "t", "before": 0, "after": 500}]), "envs/dev/app", {})) == 0
	count(deny(cost([{"address": "a", "type": "t", "before": 0, "after": 500.01}]), "envs/dev/app", {})) == 1
}

# No cost source: input.cost is absent, and there is nothing to judge.
test_no_cost_no_finding if {
	result := policy.deny with input as {"resource_changes": []}
		with data.tfgate.project as {"name": "envs/dev/app"}
		with data.tfgate.finops as {}
	count(result) == 0
}

# Settings of the wrong type (denied by the settings policy) never weaken
# the check: a numeric string is its number, garbage the default; a
# malformed production list names no project production.
test_malformed_settings_do_not_widen if {
	count(deny(cost([grow]), "envs/dev/app", {"max_resource_monthly": "600"})) == 0
	count(deny(cost([grow]), "envs/dev/app", {"max_resource_monthly": "lots"})) == 1
	count(deny(cost([grow]), "envs/prod/app", {"production": "envs/prod/*"})) == 1
	count(deny(cost([grow]), "envs/prod/app", {"production": [5]})) == 1
}
