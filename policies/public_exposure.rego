# METADATA
# title: Public exposure
# description: |
#   Deny opening admin ports (SSH, RDP, ...) to the internet in AWS security
#   groups, Google Cloud firewalls and Azure network security rules, and deny
#   bucket ACLs or IAM bindings that make storage public.
#
#   A source is the internet when it is "*", "Internet" or "Any" (Azure), or a
#   CIDR outside the private and shared ranges with a short prefix: IPv4 up to
#   /8 (so 0.0.0.0/1 + 128.0.0.0/1 counts, like 0.0.0.0/0), IPv6 up to /16.
#
#   Settings (all optional):
#     data.tfgate.admin_ports             ports that must not be public; default [22, 3389]
#     data.tfgate.allow_public            addresses (or globs) exempt from this policy
#     data.tfgate.public_prefix_max       longest IPv4 prefix that counts as the internet; default 8
#     data.tfgate.public_prefix_max_ipv6  the same for IPv6; default 16
package tfgate.rules.public_exposure

import data.tfgate.lib

deny contains {"msg": msg, "address": address, "port": port, "source": rule.source} if {
	some [address, rule] in ingress
	some port in admin_ports
	covers(rule, port)
	msg := sprintf(
		"%s: allows ingress from %s to admin port %d; restrict the source range, or list the address in data.tfgate.allow_public",
		[address, rule.source, port],
	)
}

deny contains {"msg": msg, "address": address} if {
	some [address, why] in public_storage
	msg := sprintf(
		"%s: makes storage public (%s); grant access to specific identities, or list the address in data.tfgate.allow_public",
		[address, why],
	)
}

# Settings of the wrong type are denied by the settings policy; meanwhile
# admin_ports: ["22"] or 22 checks port 22 and the default ports, and a
# malformed allow-list exempts nothing.
default admin_ports := [22, 3389]

admin_ports := lib.numbers_or(data.tfgate.admin_ports, [22, 3389])

default allow_public := []

allow_public := lib.allow_list(data.tfgate.allow_public)

default ipv4_prefix_max := 8

ipv4_prefix_max := lib.number(data.tfgate.public_prefix_max, 8)

default ipv6_prefix_max := 16

ipv6_prefix_max := lib.number(data.tfgate.public_prefix_max_ipv6, 16)

candidates := [rc |
	some rc in lib.written
	not lib.matches_any(allow_public, rc.address)
]

# public holds when an ingress source stands for the internet (see the
# description above). Strings that are not CIDRs (security group ids,
# service tags such as VirtualNetwork, bare addresses) are not public.
public(source) if lower(source) in {"*", "internet", "any"}

public(source) if {
	not contains(source, ":")
	net.cidr_is_valid(source)
	prefix_length(source) <= ipv4_prefix_max
	not inside_any(private_ipv4, source)
}

public(source) if {
	contains(source, ":")
	net.cidr_is_valid(source)
	prefix_length(source) <= ipv6_prefix_max
	not inside_any(private_ipv6, source)
}

# Private, shared (carrier-grade NAT), loopback and link-local ranges: a
# wide CIDR inside one of them is not the internet.
private_ipv4 := ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16"]

private_ipv6 := ["fc00::/7", "fe80::/10"]

inside_any(ranges, cidr) if {
	some r in ranges
	net.cidr_contains(r, cidr)
}

prefix_length(cidr) := to_number(split(cidr, "/")[1])

icmp_protocols := {"icmp", "1", "icmpv6", "58", "Icmp"}

# ingress holds [address, rule] for each public ingress rule, normalised to
# {"source", "all" (every port), "from", "to"}.
ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "aws_security_group"
	some block in list(rc.change.after.ingress)
	some rule in aws_rules(block, array.concat(items(block, "cidr_blocks"), items(block, "ipv6_cidr_blocks")))
}

ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "aws_security_group_rule"
	rc.change.after.type == "ingress"
	a := rc.change.after
	some rule in aws_rules(a, array.concat(items(a, "cidr_blocks"), items(a, "ipv6_cidr_blocks")))
}

ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "aws_vpc_security_group_ingress_rule"
	a := rc.change.after
	sources := [s | some s in [a.cidr_ipv4, a.cidr_ipv6]; is_string(s)]
	some rule in aws_rules({"protocol": a.ip_protocol, "from_port": a.from_port, "to_port": a.to_port}, sources)
}

ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "google_compute_firewall"
	a := rc.change.after
	object.get(a, "direction", "INGRESS") != "EGRESS"
	object.get(a, "disabled", false) != true
	some source in list(a.source_ranges)
	public(str(source))
	some allow in list(a.allow)
	lower(str(allow.protocol)) in {"tcp", "udp", "sctp", "all"}
	some rule in port_rules(source, items(allow, "ports"))
}

ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "azurerm_network_security_rule"
	some rule in azure_rules(rc.change.after, "source_address_prefix", "destination_port_range")
}

ingress contains [rc.address, rule] if {
	some rc in candidates
	rc.type == "azurerm_network_security_group"
	some block in list(rc.change.after.security_rule)
	some rule in azure_rules(block, "source_address_prefix", "destination_port_range")
}

aws_rules(block, sources) := {rule |
	some source in sources
	public(str(source))
	not lower(sprintf("%v", [block.protocol])) in icmp_protocols
	rule := aws_rule(block, source)
}

aws_rule(block, source) := {"source": source, "all": true} if {
	sprintf("%v", [block.protocol]) in {"-1", "all"}
} else := {"source": source, "all": false, "from": block.from_port, "to": block.to_port}

azure_rules(r, source_key, port_key) := {rule |
	lower(str(r.direction)) == "inbound"
	lower(str(r.access)) == "allow"
	lower(str(object.get(r, "protocol", "*"))) != "icmp"
	sources := array.concat([s | s := r[source_key]; is_string(s)], items(r, concat("", [source_key, "es"])))
	some source in sources
	public(str(source))
	ports := array.concat([p | p := r[port_key]; is_string(p); p != ""], items(r, concat("", [port_key, "s"])))
	some rule in port_rules(source, ports)
}

# port_rules turns port specs ("22", "8000-8080", "*") into rules; no specs
# means every port.
port_rules(source, specs) := {{"source": source, "all": true}} if {
	count(specs) == 0
} else := {port_rule(source, spec) | some spec in specs}

port_rule(source, spec) := {"source": source, "all": true} if {
	spec == "*"
} else := {"source": source, "all": false, "from": to_number(bounds[1]), "to": to_number(bounds[2])} if {
	bounds := regex.find_all_string_submatch_n(`^([0-9]+)-([0-9]+)$`, spec, 1)[0]
} else := {"source": source, "all": false, "from": to_number(spec), "to": to_number(spec)} if {
	regex.match(`^[0-9]+$`, spec)
} else := {"source": source, "all": true}

covers(rule, _) if rule.all

covers(rule, port) if {
	rule.from <= port
	port <= rule.to
}

list(x) := x if {
	is_array(x)
} else := []

# items returns obj[key] when it is an array, else an empty array.
items(obj, key) := list(object.get(obj, key, []))

str(x) := x if {
	is_string(x)
} else := ""

public_acls := {"public-read", "public-read-write", "authenticated-read"}

public_members := {"allUsers", "allAuthenticatedUsers"}

# public_storage holds [address, why] for storage made readable by anyone.
public_storage contains [rc.address, sprintf("acl %s", [rc.change.after.acl])] if {
	some rc in candidates
	rc.type in {"aws_s3_bucket_acl", "aws_s3_bucket"}
	rc.change.after.acl in public_acls
}

public_storage contains [rc.address, sprintf("grant to %s", [grantee.uri])] if {
	some rc in candidates
	rc.type == "aws_s3_bucket_acl"
	some policy in list(rc.change.after.access_control_policy)
	some grant in list(policy.grant)
	some grantee in list(grant.grantee)
	regex.match(`/(AllUsers|AuthenticatedUsers)$`, str(grantee.uri))
}

public_storage contains [rc.address, sprintf("member %s", [member])] if {
	some rc in candidates
	rc.type in {"google_storage_bucket_iam_member", "google_storage_bucket_iam_binding"}
	some member in array.concat([m | m := rc.change.after.member], items(rc.change.after, "members"))
	member in public_members
}

public_storage contains [rc.address, sprintf("entity %s", [rc.change.after.entity])] if {
	some rc in candidates
	rc.type in {"google_storage_bucket_access_control", "google_storage_default_object_access_control", "google_storage_object_access_control"}
	rc.change.after.entity in public_members
}

public_storage contains [rc.address, sprintf("container_access_type %s", [rc.change.after.container_access_type])] if {
	some rc in candidates
	rc.type == "azurerm_storage_container"
	rc.change.after.container_access_type in {"blob", "container"}
}
