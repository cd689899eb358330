package tfgate.rules.instance_types_test

import data.tfgate.rules.instance_types as policy

rc(address, type, actions, after) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": actions, "before": null, "after": after},
}

# deny evaluates the policy with allow-lists allowed (per cloud; a missing
# cloud keeps its default), ignoring any settings file next to the policies.
deny(changes, allowed) := result if {
	result := policy.deny with input as {"resource_changes": changes}
		with data.tfgate.allowed_instance_types as allowed
}

denied(result) := {[f.address, f.instance_type] | some f in result}

test_defaults if {
	changes := [
		rc("aws_instance.small", "aws_instance", ["create"], {"instance_type": "t3.micro"}),
		rc("aws_instance.general", "aws_instance", ["create"], {"instance_type": "m6i.2xlarge"}),
		rc("aws_instance.huge", "aws_instance", ["update"], {"instance_type": "c5.9xlarge"}),
		rc("aws_instance.metal", "aws_instance", ["create"], {"instance_type": "m5.metal"}),
		rc("google_compute_instance.ok", "google_compute_instance", ["create"], {"machine_type": "zones/europe-west1-b/machineTypes/e2-small"}),
		rc("google_compute_instance.big", "google_compute_instance", ["create"], {"machine_type": "n2-highmem-64"}),
		rc("azurerm_linux_virtual_machine.ok", "azurerm_linux_virtual_machine", ["create"], {"size": "Standard_D4s_v5"}),
		rc("azurerm_linux_virtual_machine.big", "azurerm_linux_virtual_machine", ["create"], {"size": "Standard_M128s"}),
	]
	result := deny(changes, {})
	denied(result) == {
		["aws_instance.huge", "c5.9xlarge"],
		["aws_instance.metal", "m5.metal"],
		["google_compute_instance.big", "n2-highmem-64"],
		["azurerm_linux_virtual_machine.big", "Standard_M128s"],
	}
	some f in result
	f.address == "aws_instance.huge"
	startswith(f.msg, "aws_instance.huge: instance_type c5.9xlarge is not allowed for aws (allowed: t2.*, t3.*")
	endswith(f.msg, "; pick an allowed type, or extend data.tfgate.allowed_instance_types.aws")
}

test_allow_list_from_data_per_cloud if {
	changes := [
		rc("aws_instance.a", "aws_instance", ["create"], {"instance_type": "t3.micro"}),
		rc("aws_instance.b", "aws_instance", ["create"], {"instance_type": "c5.9xlarge"}),
		rc("google_compute_instance.c", "google_compute_instance", ["create"], {"machine_type": "n2-highmem-64"}),
	]
	denied(deny(changes, {"aws": ["c5.*"]})) == {["aws_instance.a", "t3.micro"], ["google_compute_instance.c", "n2-highmem-64"]}
}

test_unknown_deleted_and_other_types_ignored if {
	changes := [
		rc("aws_instance.unknown", "aws_instance", ["create"], {"instance_type": null}),
		rc("aws_instance.gone", "aws_instance", ["delete"], null),
		rc("terraform_data.x", "terraform_data", ["create"], {"instance_type": "x1e.32xlarge"}),
	]
	count(deny(changes, {})) == 0
}

# Settings of the wrong type (denied by the settings policy): a list instead
# of an object keeps the defaults; a cloud's bare string allows only itself;
# a cloud's value that holds no string allows nothing.
test_malformed_settings_do_not_widen if {
	changes := [
		rc("aws_instance.a", "aws_instance", ["create"], {"instance_type": "t3.micro"}),
		rc("aws_instance.b", "aws_instance", ["create"], {"instance_type": "c5.9xlarge"}),
	]
	denied(deny(changes, ["c5.*"])) == {["aws_instance.b", "c5.9xlarge"]}
	denied(deny(changes, {"aws": "c5.*"})) == {["aws_instance.a", "t3.micro"]}
	denied(deny(changes, {"aws": 5})) == {["aws_instance.a", "t3.micro"], ["aws_instance.b", "c5.9xlarge"]}
	denied(deny(changes, {"aws": ["t3.*", 5]})) == {["aws_instance.b", "c5.9xlarge"]}
}
