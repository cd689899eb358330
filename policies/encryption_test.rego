package tfgate.rules.encryption_test

import data.tfgate.rules.encryption as policy

rc(address, type, after) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": ["create"], "before": null, "after": after},
}

# deny evaluates the policy with allow-list allow, ignoring any settings file
# next to the policies.
deny(changes, allow) := result if {
	result := policy.deny with input as {"resource_changes": changes}
		with data.tfgate.allow_unencrypted as allow
}

findings(result) := {[f.address, f.attribute] | some f in result}

test_deny_unencrypted_volume_and_databases if {
	changes := [
		rc("aws_ebs_volume.data", "aws_ebs_volume", {"encrypted": false}),
		rc("aws_db_instance.main", "aws_db_instance", {"storage_encrypted": false}),
		rc("aws_rds_cluster.main", "aws_rds_cluster", {"storage_encrypted": false}),
		rc("azurerm_mssql_database.db", "azurerm_mssql_database", {"transparent_data_encryption_enabled": false}),
	]
	result := deny(changes, [])
	findings(result) == {
		["aws_ebs_volume.data", "encrypted"],
		["aws_db_instance.main", "storage_encrypted"],
		["aws_rds_cluster.main", "storage_encrypted"],
		["azurerm_mssql_database.db", "transparent_data_encryption_enabled"],
	}
	some f in result
	f.msg == "aws_ebs_volume.data: encrypted turns encryption off; enable it, or list the address in data.tfgate.allow_unencrypted"
}

test_encrypted_and_unknown_pass if {
	changes := [
		rc("aws_ebs_volume.a", "aws_ebs_volume", {"encrypted": true}),
		rc("aws_ebs_volume.b", "aws_ebs_volume", {"encrypted": null}),
		rc("aws_ebs_volume.c", "aws_ebs_volume", {}),
		rc("aws_db_instance.d", "aws_db_instance", {"storage_encrypted": true}),
	]
	count(deny(changes, [])) == 0
}

test_instance_block_devices if {
	after := {
		"root_block_device": [{"encrypted": false}],
		"ebs_block_device": [{"encrypted": true}, {"encrypted": false}],
	}
	findings(deny([rc("aws_instance.web", "aws_instance", after)], [])) == {
		["aws_instance.web", "root_block_device[0].encrypted"],
		["aws_instance.web", "ebs_block_device[1].encrypted"],
	}
}

test_launch_template_string_booleans if {
	after := {"block_device_mappings": [{"ebs": [{"encrypted": "false"}]}, {"ebs": [{"encrypted": "true"}]}]}
	findings(deny([rc("aws_launch_template.lt", "aws_launch_template", after)], [])) == {["aws_launch_template.lt", "block_device_mappings[0].ebs[0].encrypted"]}
}

test_storage_account_https if {
	changes := [
		rc("azurerm_storage_account.v4", "azurerm_storage_account", {"https_traffic_only_enabled": false}),
		rc("azurerm_storage_account.v3", "azurerm_storage_account", {"enable_https_traffic_only": false}),
		rc("azurerm_storage_account.ok", "azurerm_storage_account", {"https_traffic_only_enabled": true}),
	]
	findings(deny(changes, [])) == {
		["azurerm_storage_account.v4", "https_traffic_only_enabled"],
		["azurerm_storage_account.v3", "enable_https_traffic_only"],
	}
}

test_opensearch_block if {
	after := {"encrypt_at_rest": [{"enabled": false}]}
	findings(deny([rc("aws_opensearch_domain.search", "aws_opensearch_domain", after)], [])) == {["aws_opensearch_domain.search", "encrypt_at_rest[0].enabled"]}
}

test_allow_list if {
	changes := [
		rc("aws_ebs_volume.scratch", "aws_ebs_volume", {"encrypted": false}),
		rc("aws_ebs_volume.data", "aws_ebs_volume", {"encrypted": false}),
	]
	findings(deny(changes, ["*.scratch"])) == {["aws_ebs_volume.data", "encrypted"]}
}

test_deletes_ignored if {
	change := {
		"address": "aws_ebs_volume.old", "mode": "managed", "type": "aws_ebs_volume", "name": "old",
		"change": {"actions": ["delete"], "before": {"encrypted": false}, "after": null},
	}
	count(deny([change], [])) == 0
}

# An allow-list that is not a list (denied by the settings policy) exempts
# nothing.
test_malformed_allow_list_exempts_nothing if {
	changes := [rc("aws_ebs_volume.scratch", "aws_ebs_volume", {"encrypted": false})]
	count(deny(changes, "*.scratch")) == 1
	count(deny(changes, null)) == 1
	count(deny(changes, [5, "*.scratch"])) == 0
}
