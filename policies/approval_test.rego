package tfgate.rules.approval_test

import data.tfgate.rules.approval

destroys := {"creates": 0, "updates": 0, "deletes": 1, "replaces": 0, "destroys": 1, "resource_types": ["aws_db_instance"], "tags_only": false}

tags := {"creates": 0, "updates": 2, "deletes": 0, "replaces": 0, "destroys": 0, "resource_types": ["aws_s3_bucket"], "tags_only": true}

prod := {"name": "envs/prod/app", "dir": "envs/prod/app", "workspace": "default", "changed_files": []}

dev := {"name": "envs/dev/app", "dir": "envs/dev/app", "workspace": "default", "changed_files": []}

test_prod_destroy_needs_two if {
	approval.approval == {{"required": 2, "teams": [], "reasons": ["prod", "destroys 1"]}} with data.tfgate.risk as destroys
		with data.tfgate.project as prod with data.tfgate.approval as {}
}

test_prod_destroy_teams_and_count_from_settings if {
	approval.approval == {{"required": 3, "teams": ["acme/platform"], "reasons": ["prod", "destroys 1"]}} with data.tfgate.risk as destroys
		with data.tfgate.project as prod
		with data.tfgate.approval as {"prod_destroy_required": 3, "prod_destroy_teams": ["acme/platform"]}
}

test_dev_destroy_decides_nothing if {
	count(approval.approval) == 0 with data.tfgate.risk as destroys with data.tfgate.project as dev with data.tfgate.approval as {}
}

test_prod_by_setting if {
	count(approval.approval) == 1 with data.tfgate.risk as destroys with data.tfgate.project as dev
		with data.tfgate.approval as {"prod_projects": ["envs/dev/*"]}
	count(approval.approval) == 0 with data.tfgate.risk as destroys with data.tfgate.project as prod
		with data.tfgate.approval as {"prod_projects": ["envs/dev/*"]}
}

test_production_segment_only if {
	count(approval.approval) == 0 with data.tfgate.risk as destroys
		with data.tfgate.project as {"name": "product-catalog", "dir": "svc/product", "workspace": "default", "changed_files": []} with data.tfgate.approval as {}
	count(approval.approval) == 1 with data.tfgate.risk as destroys
		with data.tfgate.project as {"name": "db", "dir": "production/db", "workspace": "default", "changed_files": []} with data.tfgate.approval as {}
}

test_tags_only_not_lowered_by_default if {
	count(approval.approval) == 0 with data.tfgate.risk as tags with data.tfgate.project as prod with data.tfgate.approval as {}
}

test_tags_only_lowered_when_set if {
	approval.approval == {{"required": 1, "lower": true, "reasons": ["tags only"]}} with data.tfgate.risk as tags
		with data.tfgate.project as prod
		with data.tfgate.approval as {"tags_only_required": 1}
}

test_finops_above_threshold if {
	approval.approval == {{"required": 0, "teams": ["acme/finops"], "reasons": ["+$420/month"]}} with data.tfgate.risk as tags
		with data.tfgate.project as dev
		with data.tfgate.approval as {"finops_teams": ["acme/finops"], "finops_monthly_above": 300}
		with input.cost as {"monthly_before": 10, "monthly_after": 430, "monthly_delta": 420, "currency": "USD", "unpriced": []}
}

test_finops_other_currency if {
	approval.approval == {{"required": 0, "teams": ["acme/finops"], "reasons": ["+150 EUR/month"]}} with data.tfgate.risk as tags
		with data.tfgate.project as dev
		with data.tfgate.approval as {"finops_teams": ["acme/finops"]}
		with input.cost as {"monthly_delta": 150.4, "currency": "EUR"}
}

test_finops_below_threshold_or_off if {
	count(approval.approval) == 0 with data.tfgate.risk as tags with data.tfgate.project as dev
		with data.tfgate.approval as {"finops_teams": ["acme/finops"]}
		with input.cost as {"monthly_delta": 99, "currency": "USD"}
	count(approval.approval) == 0 with data.tfgate.risk as tags with data.tfgate.project as dev
		with input.cost as {"monthly_delta": 1000, "currency": "USD"} with data.tfgate.approval as {}
}

# Without cost facts (no input.cost, or an unknown delta) the FinOps rule is silent.
test_finops_without_cost if {
	count(approval.approval) == 0 with data.tfgate.risk as tags with data.tfgate.project as dev
		with data.tfgate.approval as {"finops_teams": ["acme/finops"]}
	count(approval.approval) == 0 with data.tfgate.risk as tags with data.tfgate.project as dev
		with data.tfgate.approval as {"finops_teams": ["acme/finops"]}
		with input.cost as {"monthly_delta": null}
}

# A tags-only change that also raises the cost is not lowered: tfgate lowers
# only when every approval object says lower, and the FinOps one does not.
test_tags_and_cost_not_lowered if {
	decided := approval.approval with data.tfgate.risk as tags
		with data.tfgate.project as dev
		with data.tfgate.approval as {"tags_only_required": 1, "finops_teams": ["acme/finops"]}
		with input.cost as {"monthly_delta": 500, "currency": "USD"}
	count(decided) == 2
	count({a | some a in decided; not a.lower}) == 1
}
