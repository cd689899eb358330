# METADATA
# title: Encryption at rest and in transit
# description: |
#   Deny volumes, databases, file systems and storage that are explicitly
#   unencrypted: an attribute that turns encryption off (encrypted = false,
#   storage_encrypted = false, ...) in a created or updated resource.
#   Attributes left unknown until apply are not judged.
#
#   Settings (optional):
#     data.tfgate.allow_unencrypted  address globs exempt from this policy
package tfgate.rules.encryption

import data.tfgate.lib

deny contains {"msg": msg, "address": address, "attribute": attr} if {
	some [address, attr] in unencrypted
	msg := sprintf(
		"%s: %s turns encryption off; enable it, or list the address in data.tfgate.allow_unencrypted",
		[address, attr],
	)
}

default allow_unencrypted := []

allow_unencrypted := lib.allow_list(data.tfgate.allow_unencrypted)

# Attributes that must not be false, by resource type.
must_be_true := {
	"aws_ebs_volume": "encrypted",
	"aws_efs_file_system": "encrypted",
	"aws_redshift_cluster": "encrypted",
	"aws_db_instance": "storage_encrypted",
	"aws_rds_cluster": "storage_encrypted",
	"aws_docdb_cluster": "storage_encrypted",
	"aws_neptune_cluster": "storage_encrypted",
	"aws_elasticache_replication_group": "at_rest_encryption_enabled",
	"azurerm_mssql_database": "transparent_data_encryption_enabled",
	"azurerm_storage_account": "https_traffic_only_enabled",
}

candidates := [rc |
	some rc in lib.written
	not lib.matches_any(allow_unencrypted, rc.address)
]

# unencrypted holds [address, attribute path] for each attribute of a
# created or updated resource that switches encryption off.
unencrypted contains [rc.address, attr] if {
	some rc in candidates
	attr := must_be_true[rc.type]
	off(rc.change.after[attr])
}

# opensearch: encrypt_at_rest { enabled = false }
unencrypted contains [rc.address, sprintf("encrypt_at_rest[%d].enabled", [i])] if {
	some rc in candidates
	rc.type == "aws_opensearch_domain"
	some i, block in object.get(rc.change.after, "encrypt_at_rest", [])
	off(block.enabled)
}

# azurerm v3 name of https_traffic_only_enabled
unencrypted contains [rc.address, "enable_https_traffic_only"] if {
	some rc in candidates
	rc.type == "azurerm_storage_account"
	off(rc.change.after.enable_https_traffic_only)
}

unencrypted contains [rc.address, sprintf("%s[%d].encrypted", [block_type, i])] if {
	some rc in candidates
	rc.type in {"aws_instance", "aws_spot_instance_request"}
	some block_type in ["root_block_device", "ebs_block_device"]
	some i, block in object.get(rc.change.after, block_type, [])
	off(block.encrypted)
}

unencrypted contains [rc.address, sprintf("block_device_mappings[%d].ebs[%d].encrypted", [i, j])] if {
	some rc in candidates
	rc.type == "aws_launch_template"
	some i, mapping in object.get(rc.change.after, "block_device_mappings", [])
	some j, ebs in object.get(mapping, "ebs", [])
	off(ebs.encrypted)
}

# off holds for false and for "false" (some schemas use string booleans).
off(v) if v == false

off(v) if v == "false"
