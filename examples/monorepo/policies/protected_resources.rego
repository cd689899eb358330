# METADATA
# title: Protected resources
# description: |
#   Deny deleting or replacing stateful resources (databases, buckets, disks,
#   DNS zones, keys, ...) unless the address is allow-listed in
#   data.tfgate.allow_delete.
#
#   Settings (all optional):
#     data.tfgate.allow_delete         addresses (or globs) that may be deleted or replaced
#     data.tfgate.protected_types      extra resource types to protect
#     data.tfgate.protected_addresses  addresses (or globs) to protect whatever their type
#   An exact address always matches itself; in globs `[` and `]` are literal
#   (see tfgate.lib.matches_any).
package tfgate.rules.protected_resources

import data.tfgate.lib

deny contains {
	"msg": msg,
	"address": rc.address,
	"type": rc.type,
	"actions": rc.change.actions,
} if {
	some rc in lib.deleted
	protected(rc)
	not lib.matches_any(allow_delete, rc.address)
	msg := sprintf(
		"%s: %s a protected resource (%s); to allow it, add %q to data.tfgate.allow_delete",
		[rc.address, lib.verb(rc), rc.type, rc.address],
	)
}

protected(rc) if rc.type in stateful_types

protected(rc) if rc.type in extra_types

protected(rc) if lib.matches_any(protected_addresses, rc.address)

# Settings of the wrong type are denied by the settings policy; meanwhile
# a malformed allow-list exempts nothing and a malformed protection list
# still protects what it names.
default allow_delete := []

allow_delete := lib.allow_list(data.tfgate.allow_delete)

default extra_types := []

extra_types := lib.strings_or(data.tfgate.protected_types, [])

default protected_addresses := []

protected_addresses := lib.strings_or(data.tfgate.protected_addresses, [])

# Resource types whose deletion loses data or breaks what depends on them.
stateful_types := {
	# AWS: databases and data stores
	"aws_db_instance",
	"aws_rds_cluster",
	"aws_rds_global_cluster",
	"aws_docdb_cluster",
	"aws_neptune_cluster",
	"aws_redshift_cluster",
	"aws_redshiftserverless_namespace",
	"aws_dynamodb_table",
	"aws_elasticache_cluster",
	"aws_elasticache_replication_group",
	"aws_memorydb_cluster",
	"aws_opensearch_domain",
	"aws_elasticsearch_domain",
	"aws_keyspaces_table",
	"aws_timestreamwrite_table",
	"aws_qldb_ledger",
	"aws_kinesis_stream",
	# AWS: storage
	"aws_s3_bucket",
	"aws_ebs_volume",
	"aws_efs_file_system",
	"aws_fsx_lustre_file_system",
	"aws_fsx_ontap_file_system",
	"aws_fsx_openzfs_file_system",
	"aws_fsx_windows_file_system",
	"aws_glacier_vault",
	"aws_backup_vault",
	"aws_ecr_repository",
	# AWS: DNS, keys, secrets
	"aws_route53_zone",
	"aws_kms_key",
	"aws_secretsmanager_secret",
	# Google Cloud
	"google_sql_database_instance",
	"google_sql_database",
	"google_spanner_instance",
	"google_spanner_database",
	"google_bigtable_instance",
	"google_bigtable_table",
	"google_bigquery_dataset",
	"google_bigquery_table",
	"google_alloydb_cluster",
	"google_firestore_database",
	"google_redis_instance",
	"google_filestore_instance",
	"google_storage_bucket",
	"google_compute_disk",
	"google_compute_region_disk",
	"google_artifact_registry_repository",
	"google_dns_managed_zone",
	"google_kms_key_ring",
	"google_kms_crypto_key",
	"google_secret_manager_secret",
	# Azure
	"azurerm_mssql_server",
	"azurerm_mssql_database",
	"azurerm_mssql_managed_instance",
	"azurerm_postgresql_server",
	"azurerm_postgresql_flexible_server",
	"azurerm_mysql_flexible_server",
	"azurerm_cosmosdb_account",
	"azurerm_redis_cache",
	"azurerm_storage_account",
	"azurerm_storage_container",
	"azurerm_managed_disk",
	"azurerm_container_registry",
	"azurerm_recovery_services_vault",
	"azurerm_dns_zone",
	"azurerm_private_dns_zone",
	"azurerm_key_vault",
	"azurerm_key_vault_key",
	"azurerm_key_vault_secret",
}
