package tfgate.rules.required_tags_test

import data.tfgate.rules.required_tags as policy

rc(address, type, actions, after) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": actions, "before": null, "after": after, "after_unknown": {}},
}

# deny evaluates the policy on changes with the required keys given (the
# library default is ["owner"]), ignoring any settings file next to the policies.
deny(changes, required) := result if {
	result := policy.deny with input as {"resource_changes": changes}
		with data.tfgate.required_tags as required
}

# required is the configured list, or ["owner"] when a settings file does not
# configure one.
test_default_is_owner if {
	configured := [keys | keys := data.tfgate.required_tags]
	policy.required == array.concat(configured, [["owner"]])[0]
}

test_deny_missing_owner_tag if {
	result := deny([rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"env": "prod"}, "tags_all": {"env": "prod"}})], ["owner"])
	count(result) == 1
	some f in result
	f.address == "aws_instance.web"
	f.missing == ["owner"]
	f.msg == "aws_instance.web: missing required tag owner (required: data.tfgate.required_tags)"
}

test_null_tags_denied if {
	count(deny([rc("azurerm_storage_account.s", "azurerm_storage_account", ["update"], {"tags": null})], ["owner"])) == 1
}

test_tagged_resource_passes if {
	count(deny([rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"owner": "team-a"}, "tags_all": {"owner": "team-a"}})], ["owner"])) == 0
}

test_provider_default_tags_count if {
	count(deny([rc("aws_instance.web", "aws_instance", ["create"], {"tags": null, "tags_all": {"owner": "platform"}})], ["owner"])) == 0
}

test_google_labels if {
	result := deny(
		[
			rc("google_storage_bucket.a", "google_storage_bucket", ["create"], {"labels": {"team": "x"}, "effective_labels": {"team": "x"}}),
			rc("google_storage_bucket.b", "google_storage_bucket", ["create"], {"labels": null, "effective_labels": {"owner": "y"}}),
		],
		["owner"],
	)
	{f.address | some f in result} == {"google_storage_bucket.a"}
	some f in result
	contains(f.msg, "missing required label owner")
}

test_untaggable_and_foreign_types_ignored if {
	changes := [
		rc("aws_security_group_rule.r", "aws_security_group_rule", ["create"], {"type": "ingress"}),
		rc("terraform_data.x", "terraform_data", ["create"], {"input": "x"}),
	]
	count(deny(changes, ["owner"])) == 0
}

test_deletes_ignored if {
	change := {
		"address": "aws_instance.old", "mode": "managed", "type": "aws_instance", "name": "old",
		"change": {"actions": ["delete"], "before": {"tags": {}}, "after": null},
	}
	count(deny([change], ["owner"])) == 0
}

test_unknown_tags_not_judged if {
	change := object.union(
		rc("aws_instance.web", "aws_instance", ["create"], {"tags": {"env": "x"}, "tags_all": null}),
		{"change": {"after_unknown": {"tags_all": true}}},
	)
	count(deny([change], ["owner"])) == 0
}

test_several_required_keys if {
	after := {"tags": {"owner": "a"}, "tags_all": {"owner": "a"}}
	result := deny([rc("aws_instance.web", "aws_instance", ["create"], after)], ["owner", "env", "cost-center"])
	some f in result
	f.missing == ["cost-center", "env"]
	f.msg == "aws_instance.web: missing required tags cost-center, env (required: data.tfgate.required_tags)"
}

test_empty_list_turns_the_policy_off if {
	count(deny([rc("aws_instance.web", "aws_instance", ["create"], {"tags": null})], [])) == 0
}

# A setting that is not a list of strings (denied by the settings policy)
# still requires owner and the keys it names.
test_malformed_setting_does_not_turn_the_policy_off if {
	after := {"tags": {"env": "x"}, "tags_all": {"env": "x"}}
	changes := [rc("aws_instance.web", "aws_instance", ["create"], after)]
	{m | some f in deny(changes, "owner"); some m in f.missing} == {"owner"}
	{m | some f in deny(changes, "team"); some m in f.missing} == {"owner", "team"}
	{m | some f in deny(changes, ["team", 5]); some m in f.missing} == {"owner", "team"}
	{m | some f in deny(changes, null); some m in f.missing} == {"owner"}
	some f in deny(changes, "owner")
	f.msg == "aws_instance.web: missing required tag owner (required: data.tfgate.required_tags)"
}
