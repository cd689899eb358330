package tfgate.rules.required_tags_test

import data.tfgate.rules.required_tags as policy

rc(address, type, actions, after) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": actions, "before": null, "after": after, "after_unknown": {}},
}

plan(changes) := {"resource_changes": changes}

test_deny_missing_owner_tag if {
	result := policy.deny with input as plan([rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"env": "prod"}, "tags_all": {"env": "prod"}})])
	count(result) == 1
	some f in result
	f.address == "aws_instance.web"
	f.missing == ["owner"]
	f.msg == "aws_instance.web: missing required tag owner (required: data.tfgate.required_tags)"
}

test_null_tags_denied if {
	count(policy.deny) == 1 with input as plan([rc("azurerm_storage_account.s", "azurerm_storage_account", ["update"], {"tags": null})])
}

test_tagged_resource_passes if {
	count(policy.deny) == 0 with input as plan([rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"owner": "team-a"}, "tags_all": {"owner": "team-a"}})])
}

test_provider_default_tags_count if {
	count(policy.deny) == 0 with input as plan([rc("aws_instance.web", "aws_instance", ["create"], {"tags": null, "tags_all": {"owner": "platform"}})])
}

test_google_labels if {
	result := policy.deny with input as plan([
		rc("google_storage_bucket.a", "google_storage_bucket", ["create"], {"labels": {"team": "x"}, "effective_labels": {"team": "x"}}),
		rc("google_storage_bucket.b", "google_storage_bucket", ["create"], {"labels": null, "effective_labels": {"owner": "y"}}),
	])
	{f.address | some f in result} == {"google_storage_bucket.a"}
	some f in result
	contains(f.msg, "missing required label owner")
}

test_untaggable_and_foreign_types_ignored if {
	changes := [
		rc("aws_security_group_rule.r", "aws_security_group_rule", ["create"], {"type": "ingress"}),
		rc("terraform_data.x", "terraform_data", ["create"], {"input": "x"}),
	]
	count(policy.deny) == 0 with input as plan(changes)
}

test_deletes_ignored if {
	change := {
		"address": "aws_instance.old", "mode": "managed", "type": "aws_instance", "name": "old",
		"change": {"actions": ["delete"], "before": {"tags": {}}, "after": null},
	}
	count(policy.deny) == 0 with input as plan([change])
}

test_unknown_tags_not_judged if {
	change := object.union(
		rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"env": "x"}, "tags_all": null}),
		{"change": {"after_unknown": {"tags_all": true}}},
	)
	count(policy.deny) == 0 with input as plan([change])
}

test_required_keys_from_data if {
	after := {"tags": {"owner": "a"}, "tags_all": {"owner": "a"}}
	result := policy.deny with input as plan([rc("aws_instance.web", "aws_instance", ["create"], after)])
		with data.tfgate.required_tags as ["owner", "env", "cost-center"]
	some f in result
	f.missing == ["cost-center", "env"]
	f.msg == "aws_instance.web: missing required tags cost-center, env (required: data.tfgate.required_tags)"
	count(policy.deny) == 0 with input as plan([rc("aws_instance.web", "aws_instance", ["create"], {"tags": null})])
		with data.tfgate.required_tags as []
}
