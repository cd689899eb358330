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

deny contains {"msg": msg, "address": rc.address, "attribute": attr} if {
	some rc in lib.written
	not lib.matches_any(allow_unencrypted, rc.address)
	some attr in unencrypted(rc.type, rc.change.after)
	msg := sprintf(
		"%s: %s turns encryption off; enable it, or list the address in data.tfgate.allow_unencrypted",
		[rc.address, attr],
	)
}

default allow_unencrypted := []

allow_unencrypted := data.tfgate.allow_unencrypted

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
	"aws_opensearch_domain": "encrypt_at_rest",
	"azurerm_mssql_database": "transparent_data_encryption_enabled",
	"azurerm_storage_account": "https_traffic_only_enabled",
}

# unencrypted returns the attribute paths of after that switch encryption off.
unencrypted(type, after) := {attr |
	attr := must_be_true[type]
	off(after[attr])
} | {attr |
	# opensearch: encrypt_at_rest { enabled = false }
	type == "aws_opensearch_domain"
	some i, block in object.get(after, "encrypt_at_rest", [])
	off(block.enabled)
	attr := sprintf("encrypt_at_rest[%d].enabled", [i])
} | {attr |
	# azurerm v3 name of https_traffic_only_enabled
	type == "azurerm_storage_account"
	off(after.enable_https_traffic_only)
	attr := "enable_https_traffic_only"
} | {attr |
	type in {"aws_instance", "aws_spot_instance_request"}
	some block_type in ["root_block_device", "ebs_block_device"]
	some i, block in object.get(after, block_type, [])
	off(block.encrypted)
	attr := sprintf("%s[%d].encrypted", [block_type, i])
} | {attr |
	type == "aws_launch_template"
	some i, mapping in object.get(after, "block_device_mappings", [])
	some j, ebs in object.get(mapping, "ebs", [])
	off(ebs.encrypted)
	attr := sprintf("block_device_mappings[%d].ebs[%d].encrypted", [i, j])
}

# off holds for false and for "false" (some schemas use string booleans).
off(v) if v == false

off(v) if v == "false"
