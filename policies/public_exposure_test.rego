package tfgate.rules.public_exposure_test

import data.tfgate.rules.public_exposure as policy

rc(address, type, after) := {
	"address": address,
	"mode": "managed",
	"type": type,
	"name": "x",
	"change": {"actions": ["create"], "before": null, "after": after},
}

# deny evaluates the policy with settings s (missing keys: the library
# defaults), ignoring any settings file next to the policies.
deny(changes, s) := result if {
	result := policy.deny with input as {"resource_changes": changes}
		with data.tfgate.admin_ports as object.get(s, "admin_ports", [22, 3389])
		with data.tfgate.allow_public as object.get(s, "allow_public", [])
		with data.tfgate.public_prefix_max as object.get(s, "public_prefix_max", 8)
		with data.tfgate.public_prefix_max_ipv6 as object.get(s, "public_prefix_max_ipv6", 16)
}

sg_ingress(from, to, protocol, cidrs) := {
	"from_port": from, "to_port": to, "protocol": protocol,
	"cidr_blocks": cidrs, "ipv6_cidr_blocks": [],
}

addresses(result) := {f.address | some f in result}

test_deny_ssh_from_anywhere_in_security_group if {
	after := {"ingress": [sg_ingress(443, 443, "tcp", ["0.0.0.0/0"]), sg_ingress(22, 22, "tcp", ["0.0.0.0/0"])]}
	result := deny([rc("aws_security_group.admin", "aws_security_group", after)], {})
	count(result) == 1
	some f in result
	f.port == 22
	f.msg == "aws_security_group.admin: allows ingress from 0.0.0.0/0 to admin port 22; restrict the source range, or list the address in data.tfgate.allow_public"
}

test_port_ranges_and_all_protocols if {
	changes := [
		rc("aws_security_group.range", "aws_security_group", {"ingress": [sg_ingress(3000, 4000, "tcp", ["0.0.0.0/0"])]}),
		rc("aws_security_group.all", "aws_security_group", {"ingress": [sg_ingress(0, 0, "-1", ["0.0.0.0/0"])]}),
		rc("aws_security_group.v6", "aws_security_group", {"ingress": [{"from_port": 22, "to_port": 22, "protocol": "tcp", "cidr_blocks": null, "ipv6_cidr_blocks": ["::/0"]}]}),
	]
	result := deny(changes, {})
	{[f.address, f.port] | some f in result} == {
		["aws_security_group.range", 3389],
		["aws_security_group.all", 22],
		["aws_security_group.all", 3389],
		["aws_security_group.v6", 22],
	}
}

test_private_ranges_icmp_and_web_ports_pass if {
	changes := [
		rc("aws_security_group.private", "aws_security_group", {"ingress": [sg_ingress(22, 22, "tcp", ["10.0.0.0/8"])]}),
		rc("aws_security_group.web", "aws_security_group", {"ingress": [sg_ingress(443, 443, "tcp", ["0.0.0.0/0"])]}),
		rc("aws_security_group.icmp", "aws_security_group", {"ingress": [sg_ingress(0, 3389, "icmp", ["0.0.0.0/0"])]}),
		rc("aws_security_group.none", "aws_security_group", {"ingress": null}),
	]
	count(deny(changes, {})) == 0
}

test_security_group_rules if {
	changes := [
		rc("aws_security_group_rule.in", "aws_security_group_rule", object.union(sg_ingress(22, 22, "tcp", ["0.0.0.0/0"]), {"type": "ingress"})),
		rc("aws_security_group_rule.out", "aws_security_group_rule", object.union(sg_ingress(22, 22, "tcp", ["0.0.0.0/0"]), {"type": "egress"})),
		rc("aws_vpc_security_group_ingress_rule.rdp", "aws_vpc_security_group_ingress_rule", {"ip_protocol": "tcp", "from_port": 3389, "to_port": 3389, "cidr_ipv4": "0.0.0.0/0", "cidr_ipv6": null}),
	]
	addresses(deny(changes, {})) == {"aws_security_group_rule.in", "aws_vpc_security_group_ingress_rule.rdp"}
}

fw(ports, ranges, direction) := {"direction": direction, "disabled": false, "source_ranges": ranges, "allow": [{"protocol": "tcp", "ports": ports}]}

test_google_firewall if {
	changes := [
		rc("google_compute_firewall.ssh", "google_compute_firewall", fw(["22"], ["0.0.0.0/0"], "INGRESS")),
		rc("google_compute_firewall.range", "google_compute_firewall", fw(["3000-4000"], ["0.0.0.0/0"], null)),
		rc("google_compute_firewall.all_ports", "google_compute_firewall", fw([], ["0.0.0.0/0"], "INGRESS")),
		rc("google_compute_firewall.web", "google_compute_firewall", fw(["80", "443"], ["0.0.0.0/0"], "INGRESS")),
		rc("google_compute_firewall.internal", "google_compute_firewall", fw(["22"], ["10.0.0.0/8"], "INGRESS")),
		rc("google_compute_firewall.egress", "google_compute_firewall", fw(["22"], ["0.0.0.0/0"], "EGRESS")),
	]
	addresses(deny(changes, {})) == {
		"google_compute_firewall.ssh",
		"google_compute_firewall.range",
		"google_compute_firewall.all_ports",
	}
}

nsg_rule(source, port, access) := {
	"direction": "Inbound", "access": access, "protocol": "Tcp",
	"source_address_prefix": source, "source_address_prefixes": [],
	"destination_port_range": port, "destination_port_ranges": [],
}

test_azure_security_rules if {
	changes := [
		rc("azurerm_network_security_rule.rdp", "azurerm_network_security_rule", nsg_rule("*", "3389", "Allow")),
		rc("azurerm_network_security_rule.any", "azurerm_network_security_rule", nsg_rule("Internet", "*", "Allow")),
		rc("azurerm_network_security_rule.denied", "azurerm_network_security_rule", nsg_rule("*", "22", "Deny")),
		rc("azurerm_network_security_rule.vnet", "azurerm_network_security_rule", nsg_rule("VirtualNetwork", "22", "Allow")),
		rc("azurerm_network_security_group.nsg", "azurerm_network_security_group", {"security_rule": [nsg_rule("0.0.0.0/0", "20-25", "Allow")]}),
	]
	addresses(deny(changes, {})) == {
		"azurerm_network_security_rule.rdp",
		"azurerm_network_security_rule.any",
		"azurerm_network_security_group.nsg",
	}
}

test_admin_ports_and_allow_list_from_data if {
	after := {"ingress": [sg_ingress(5432, 5432, "tcp", ["0.0.0.0/0"]), sg_ingress(22, 22, "tcp", ["0.0.0.0/0"])]}
	changes := [
		rc("aws_security_group.db", "aws_security_group", after),
		rc("aws_security_group.bastion", "aws_security_group", after),
	]
	result := deny(changes, {"admin_ports": [5432], "allow_public": ["aws_security_group.bastion"]})
	{[f.address, f.port] | some f in result} == {["aws_security_group.db", 5432]}
}

test_public_buckets if {
	changes := [
		rc("aws_s3_bucket_acl.site", "aws_s3_bucket_acl", {"acl": "public-read"}),
		rc("aws_s3_bucket_acl.private", "aws_s3_bucket_acl", {"acl": "private"}),
		rc("aws_s3_bucket_acl.grant", "aws_s3_bucket_acl", {"acl": null, "access_control_policy": [{"grant": [{"grantee": [{"uri": "http://acs.amazonaws.com/groups/global/AllUsers"}]}]}]}),
		rc("google_storage_bucket_iam_member.pub", "google_storage_bucket_iam_member", {"member": "allUsers", "role": "roles/storage.objectViewer"}),
		rc("google_storage_bucket_iam_member.user", "google_storage_bucket_iam_member", {"member": "user:a@example.com"}),
		rc("google_storage_bucket_iam_binding.pub", "google_storage_bucket_iam_binding", {"members": ["user:a@example.com", "allAuthenticatedUsers"]}),
		rc("azurerm_storage_container.blob", "azurerm_storage_container", {"container_access_type": "blob"}),
		rc("azurerm_storage_container.private", "azurerm_storage_container", {"container_access_type": "private"}),
	]
	result := deny(changes, {})
	addresses(result) == {
		"aws_s3_bucket_acl.site",
		"aws_s3_bucket_acl.grant",
		"google_storage_bucket_iam_member.pub",
		"google_storage_bucket_iam_binding.pub",
		"azurerm_storage_container.blob",
	}
	some f in result
	f.msg == "aws_s3_bucket_acl.site: makes storage public (acl public-read); grant access to specific identities, or list the address in data.tfgate.allow_public"
}

test_deletes_ignored if {
	change := {
		"address": "aws_s3_bucket_acl.site", "mode": "managed", "type": "aws_s3_bucket_acl", "name": "site",
		"change": {"actions": ["delete"], "before": {"acl": "public-read"}, "after": null},
	}
	count(deny([change], {})) == 0
}

# sources returns [address, source] for each finding on port 22.
sources(result) := {[f.address, f.source] | some f in result; f.port == 22}

ssh_from(address, cidrs) := rc(address, "aws_security_group", {"ingress": [sg_ingress(22, 22, "tcp", cidrs)]})

test_wide_cidrs_are_the_internet if {
	changes := [
		ssh_from("aws_security_group.halves", ["0.0.0.0/1", "128.0.0.0/1"]),
		ssh_from("aws_security_group.slash8", ["1.0.0.0/8"]),
		ssh_from("aws_security_group.unaligned", ["8.8.8.8/4"]),
		ssh_from("aws_security_group.narrow", ["1.0.0.0/9", "203.0.113.7/32"]),
		ssh_from("aws_security_group.private", ["10.0.0.0/8", "127.0.0.0/8"]),
		rc("aws_security_group.v6", "aws_security_group", {"ingress": [{
			"from_port": 22, "to_port": 22, "protocol": "tcp", "cidr_blocks": [],
			"ipv6_cidr_blocks": ["::/1", "8000::/1", "2000::/3", "2001:db8::/32", "fd00::/8", "fe80::/10"],
		}]}),
	]
	sources(deny(changes, {})) == {
		["aws_security_group.halves", "0.0.0.0/1"],
		["aws_security_group.halves", "128.0.0.0/1"],
		["aws_security_group.slash8", "1.0.0.0/8"],
		["aws_security_group.unaligned", "8.8.8.8/4"],
		["aws_security_group.v6", "::/1"],
		["aws_security_group.v6", "8000::/1"],
		["aws_security_group.v6", "2000::/3"],
	}
}

test_prefix_limits_from_data if {
	changes := [
		ssh_from("aws_security_group.public", ["8.8.0.0/16", "2001:db8::/32"]),
		ssh_from("aws_security_group.private", ["172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "fc00::/7"]),
		ssh_from("aws_security_group.host", ["8.8.8.8/32"]),
	]
	result := deny(changes, {"public_prefix_max": 16, "public_prefix_max_ipv6": 32})
	sources(result) == {["aws_security_group.public", "8.8.0.0/16"], ["aws_security_group.public", "2001:db8::/32"]}
	count(deny(changes, {})) == 0

	# a limit of the wrong type falls back to the default (the settings policy denies it)
	sources(deny([ssh_from("a.b", ["1.0.0.0/8", "1.0.0.0/16"])], {"public_prefix_max": "x"})) == {["a.b", "1.0.0.0/8"]}
	sources(deny([ssh_from("a.b", ["1.0.0.0/8", "1.0.0.0/16"])], {"public_prefix_max": "16"})) == {["a.b", "1.0.0.0/8"], ["a.b", "1.0.0.0/16"]}
}

test_sources_that_are_not_cidrs_pass if {
	changes := [
		ssh_from("aws_security_group.odd", ["sg-123", "1.2.3.4", "", "0.0.0.0/33", "not/a/cidr"]),
		rc("azurerm_network_security_rule.tags", "azurerm_network_security_rule", nsg_rule("VirtualNetwork", "22", "Allow")),
		rc("azurerm_network_security_rule.lb", "azurerm_network_security_rule", nsg_rule("AzureLoadBalancer", "22", "Allow")),
	]
	count(deny(changes, {})) == 0
}

test_wide_cidrs_in_every_ingress_kind if {
	rule := object.union(sg_ingress(22, 22, "tcp", ["0.0.0.0/1"]), {"type": "ingress"})
	nsg := object.union(nsg_rule(null, "22", "Allow"), {"source_address_prefixes": ["10.0.0.0/8", "128.0.0.0/2"]})
	changes := [
		rc("aws_security_group_rule.half", "aws_security_group_rule", rule),
		rc("aws_vpc_security_group_ingress_rule.v4", "aws_vpc_security_group_ingress_rule", {"ip_protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_ipv4": "0.0.0.0/2", "cidr_ipv6": null}),
		rc("aws_vpc_security_group_ingress_rule.v6", "aws_vpc_security_group_ingress_rule", {"ip_protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_ipv4": null, "cidr_ipv6": "::/0"}),
		rc("google_compute_firewall.halves", "google_compute_firewall", fw(["22"], ["0.0.0.0/1", "128.0.0.0/1"], "INGRESS")),
		rc("azurerm_network_security_rule.prefixes", "azurerm_network_security_rule", nsg),
		rc("azurerm_network_security_rule.internet", "azurerm_network_security_rule", nsg_rule("internet", "22", "Allow")),
		rc("azurerm_network_security_group.any", "azurerm_network_security_group", {"security_rule": [nsg_rule("Any", "22", "Allow")]}),
	]
	sources(deny(changes, {})) == {
		["aws_security_group_rule.half", "0.0.0.0/1"],
		["aws_vpc_security_group_ingress_rule.v4", "0.0.0.0/2"],
		["aws_vpc_security_group_ingress_rule.v6", "::/0"],
		["google_compute_firewall.halves", "0.0.0.0/1"],
		["google_compute_firewall.halves", "128.0.0.0/1"],
		["azurerm_network_security_rule.prefixes", "128.0.0.0/2"],
		["azurerm_network_security_rule.internet", "internet"],
		["azurerm_network_security_group.any", "Any"],
	}
}

# admin_ports of the wrong type (denied by the settings policy) still check
# the ports they name and the default ones; a malformed allow-list exempts
# nothing.
test_malformed_settings_do_not_weaken if {
	after := {"ingress": [sg_ingress(0, 65535, "tcp", ["0.0.0.0/0"])]}
	changes := [rc("aws_security_group.wide", "aws_security_group", after)]
	ports(deny(changes, {"admin_ports": ["22", "3389"]})) == {22, 3389}
	ports(deny(changes, {"admin_ports": 5432})) == {22, 3389, 5432}
	ports(deny(changes, {"admin_ports": ["ssh"]})) == {22, 3389}
	ports(deny(changes, {"admin_ports": null})) == {22, 3389}
	ports(deny(changes, {"admin_ports": []})) == set()
	ports(deny(changes, {"allow_public": "aws_security_group.wide"})) == {22, 3389}
}

ports(result) := {f.port | some f in result; f.port}
