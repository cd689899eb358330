# METADATA
# title: Instance types (FinOps)
# description: |
#   Deny compute instances whose type is outside an allow-list of glob
#   patterns, per cloud. The defaults allow burstable and general-purpose
#   families up to 2xlarge (8 vCPUs); set your own list per cloud.
#
#   Settings (optional), data.tfgate.allowed_instance_types:
#     {"aws": ["t3.*", ...], "google": ["e2-*", ...], "azure": ["Standard_B*", ...]}
#   A cloud missing from the object keeps its default list.
package tfgate.rules.instance_types

import data.tfgate.lib

deny contains {"msg": msg, "address": rc.address, "instance_type": size} if {
	some rc in lib.written
	[cloud, attr] := sized_types[rc.type]
	value := rc.change.after[attr]
	is_string(value)
	size := short_name(value)
	allowed := allowed_for(cloud)
	not any_match(allowed, size)
	msg := sprintf(
		"%s: %s %s is not allowed for %s (allowed: %s); pick an allowed type, or extend data.tfgate.allowed_instance_types.%s",
		[rc.address, attr, size, cloud, concat(", ", allowed), cloud],
	)
}

# Resource types that choose a machine size: [cloud, attribute].
sized_types := {
	"aws_instance": ["aws", "instance_type"],
	"aws_launch_template": ["aws", "instance_type"],
	"aws_spot_instance_request": ["aws", "instance_type"],
	"google_compute_instance": ["google", "machine_type"],
	"google_compute_instance_template": ["google", "machine_type"],
	"google_compute_region_instance_template": ["google", "machine_type"],
	"azurerm_linux_virtual_machine": ["azure", "size"],
	"azurerm_windows_virtual_machine": ["azure", "size"],
	"azurerm_virtual_machine": ["azure", "vm_size"],
	"azurerm_linux_virtual_machine_scale_set": ["azure", "sku"],
	"azurerm_windows_virtual_machine_scale_set": ["azure", "sku"],
}

default_allowed := {
	"aws": [
		"t2.*", "t3.*", "t3a.*", "t4g.*",
		"m[5-8]*.{large,xlarge,2xlarge}",
		"c[5-8]*.{large,xlarge,2xlarge}",
		"r[5-8]*.{large,xlarge,2xlarge}",
	],
	"google": [
		"e2-*", "f1-micro", "g1-small",
		"n2-standard-{2,4,8}", "n2d-standard-{2,4,8}", "t2d-standard-{1,2,4,8}",
	],
	"azure": [
		"Standard_B*",
		"Standard_D{2,4,8}*_v{4,5,6}",
		"Standard_E{2,4,8}*_v{4,5,6}",
		"Standard_F{2,4,8}*_v2",
	],
}

default configured := {}

configured := data.tfgate.allowed_instance_types if is_object(data.tfgate.allowed_instance_types)

# A cloud's list of the wrong type (the settings policy denies it) allows
# only the strings it holds: "t3.*" allows t3.*, 5 allows nothing.
allowed_for(cloud) := lib.strings_in(object.get(configured, cloud, default_allowed[cloud]))

any_match(patterns, size) if {
	some p in patterns
	glob.match(p, null, size)
}

# Google accepts "zones/z/machineTypes/e2-small" as well as "e2-small".
short_name(value) := parts[count(parts) - 1] if parts := split(value, "/")
