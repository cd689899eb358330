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

# deny evaluates the policy with settings s (missing keys: not configured),
# ignoring any settings file next to the policies so these tests stay valid
# whatever a team configures.
deny(changes, s) := result if {
	result := policy.deny with input as plan(changes)
		with data.tfgate.allow_delete as object.get(s, "allow_delete", [])
		with data.tfgate.protected_types as object.get(s, "protected_types", [])
		with data.tfgate.protected_addresses as object.get(s, "protected_addresses", [])
}

test_deny_deleting_database if {
	result := deny([rc("aws_db_instance.main", "aws_db_instance", ["delete"])], {})
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
	result := deny(changes, {})
	count(result) == 2
	every f in result {
		contains(f.msg, "replacing a protected resource")
	}
}

test_deny_across_clouds if {
	changes := [rc(sprintf("%s.x", [t]), t, ["delete"]) |
		some t in ["aws_s3_bucket", "aws_kms_key", "google_dns_managed_zone", "google_kms_crypto_key", "azurerm_dns_zone", "azurerm_key_vault_key"]
	]
	count(deny(changes, {})) == 6
}

test_allow_listed_address_passes if {
	count(deny([rc("aws_db_instance.main", "aws_db_instance", ["delete"])], {"allow_delete": ["aws_db_instance.main"]})) == 0
}

test_allow_list_glob if {
	changes := [
		rc("module.legacy.aws_s3_bucket.logs", "aws_s3_bucket", ["delete"]),
		rc("module.current.aws_s3_bucket.logs", "aws_s3_bucket", ["delete"]),
	]
	result := deny(changes, {"allow_delete": ["module.legacy.*"]})
	{f.address | some f in result} == {"module.current.aws_s3_bucket.logs"}
}

test_updates_and_creates_pass if {
	changes := [
		rc("aws_db_instance.a", "aws_db_instance", ["update"]),
		rc("aws_db_instance.b", "aws_db_instance", ["create"]),
		rc("aws_db_instance.c", "aws_db_instance", ["no-op"]),
	]
	count(deny(changes, {})) == 0
}

test_unprotected_type_passes if {
	count(deny([rc("aws_instance.web", "aws_instance", ["delete"])], {})) == 0
}

test_data_sources_ignored if {
	d := object.union(rc("data.aws_s3_bucket.b", "aws_s3_bucket", ["read"]), {"mode": "data"})
	count(deny([d], {})) == 0
}

test_extra_protected_types if {
	count(deny([rc("terraform_data.vpc", "terraform_data", ["delete"])], {"protected_types": ["terraform_data"]})) == 1
}

test_protected_addresses if {
	changes := [
		rc("terraform_data.vpc", "terraform_data", ["delete"]),
		rc("terraform_data.scratch", "terraform_data", ["delete"]),
	]
	result := deny(changes, {"protected_addresses": ["*.vpc"]})
	{f.address | some f in result} == {"terraform_data.vpc"}
}

test_empty_plan_passes if {
	count(policy.deny) == 0 with input as {}
		with data.tfgate.protected_addresses as ["*"]
}

# The address the deny message suggests, added to allow_delete, lets the
# change through: indexed addresses hold brackets, which are no glob class.
test_suggested_address_allows_the_change if {
	address := `module.app.aws_db_instance.main["eu"]`
	changes := [rc(address, "aws_db_instance", ["delete"])]
	some f in deny(changes, {})
	contains(f.msg, `add "module.app.aws_db_instance.main[\"eu\"]" to data.tfgate.allow_delete`)
	count(deny(changes, {"allow_delete": [address]})) == 0
	count(deny(changes, {"allow_delete": ["module.app.aws_db_instance.main[*]"]})) == 0
	count(deny(changes, {"allow_delete": [`module.app.aws_db_instance.main["us"]`]})) == 1
}

test_protected_indexed_addresses if {
	changes := [
		rc(`module.app.aws_instance.web["eu"]`, "aws_instance", ["delete"]),
		rc(`module.app.aws_instance.web["us"]`, "aws_instance", ["delete"]),
		rc("aws_instance.api[0]", "aws_instance", ["delete"]),
	]
	result := deny(changes, {"protected_addresses": [`module.app.aws_instance.web["eu"]`, "*.api[*]"]})
	{f.address | some f in result} == {`module.app.aws_instance.web["eu"]`, "aws_instance.api[0]"}
}

# Settings of the wrong type (denied by the settings policy) never weaken
# this policy: a bare string still protects, an allow-list that is not a
# list exempts nothing.
test_malformed_settings_do_not_weaken if {
	changes := [
		rc("terraform_data.vpc", "terraform_data", ["delete"]),
		rc("terraform_data.dns", "terraform_data", ["delete"]),
		rc("aws_db_instance.main", "aws_db_instance", ["delete"]),
	]
	count(deny(changes, {"protected_types": "terraform_data"})) == 3
	count(deny(changes, {"protected_addresses": "*.dns"})) == 2
	count(deny(changes, {"allow_delete": "aws_db_instance.main"})) == 1
	count(deny(changes, {"allow_delete": null})) == 1
}
