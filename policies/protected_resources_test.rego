package tfgate.rules.protected_resources_test

import data.tfgate.rules.protected_resources as policy

rc(address, type, actions) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": actions, "before": {"id": "1"}, "after": null},
}

plan(changes) := {"resource_changes": changes}

test_deny_deleting_database if {
	result := policy.deny with input as plan([rc("aws_db_instance.main", "aws_db_instance", ["delete"])])
	count(result) == 1
	some f in result
	f.address == "aws_db_instance.main"
	f.type == "aws_db_instance"
	startswith(f.msg, "aws_db_instance.main: deleting a protected resource (aws_db_instance)")
	contains(f.msg, `add "aws_db_instance.main" to data.tfgate.allow_delete`)
}

test_deny_replacing_in_either_order if {
	changes := [
		rc("google_storage_bucket.a", "google_storage_bucket", ["delete", "create"]),
		rc("azurerm_managed_disk.b", "azurerm_managed_disk", ["create", "delete"]),
	]
	result := policy.deny with input as plan(changes)
	count(result) == 2
	every f in result {
		contains(f.msg, "replacing a protected resource")
	}
}

test_deny_across_clouds if {
	changes := [rc(sprintf("%s.x", [t]), t, ["delete"]) |
		some t in ["aws_s3_bucket", "aws_kms_key", "google_dns_managed_zone", "google_kms_crypto_key", "azurerm_dns_zone", "azurerm_key_vault_key"]
	]
	count(policy.deny) == 6 with input as plan(changes)
}

test_allow_listed_address_passes if {
	count(policy.deny) == 0 with input as plan([rc("aws_db_instance.main", "aws_db_instance", ["delete"])])
		with data.tfgate.allow_delete as ["aws_db_instance.main"]
}

test_allow_list_glob if {
	changes := [
		rc("module.legacy.aws_s3_bucket.logs", "aws_s3_bucket", ["delete"]),
		rc("module.current.aws_s3_bucket.logs", "aws_s3_bucket", ["delete"]),
	]
	result := policy.deny with input as plan(changes) with data.tfgate.allow_delete as ["module.legacy.*"]
	{f.address | some f in result} == {"module.current.aws_s3_bucket.logs"}
}

test_updates_and_creates_pass if {
	changes := [
		rc("aws_db_instance.a", "aws_db_instance", ["update"]),
		rc("aws_db_instance.b", "aws_db_instance", ["create"]),
		rc("aws_db_instance.c", "aws_db_instance", ["no-op"]),
	]
	count(policy.deny) == 0 with input as plan(changes)
}

test_unprotected_type_passes if {
	count(policy.deny) == 0 with input as plan([rc("aws_instance.web", "aws_instance", ["delete"])])
}

test_data_sources_ignored if {
	d := object.union(rc("data.aws_s3_bucket.b", "aws_s3_bucket", ["read"]), {"mode": "data"})
	count(policy.deny) == 0 with input as plan([d])
}

test_extra_protected_types if {
	count(policy.deny) == 1 with input as plan([rc("terraform_data.vpc", "terraform_data", ["delete"])])
		with data.tfgate.protected_types as ["terraform_data"]
}

test_protected_addresses if {
	changes := [
		rc("terraform_data.vpc", "terraform_data", ["delete"]),
		rc("terraform_data.scratch", "terraform_data", ["delete"]),
	]
	result := policy.deny with input as plan(changes) with data.tfgate.protected_addresses as ["*.vpc"]
	{f.address | some f in result} == {"terraform_data.vpc"}
}

test_empty_plan_passes if {
	count(policy.deny) == 0 with input as {}
}
