package tfgate.lib_test

import data.tfgate.lib

rc(address, mode, actions, after) := {
	"address": address,
	"mode": mode,
	"type": "terraform_data",
	"change": {"actions": actions, "after": after},
}

test_changes_skip_no_ops_reads_and_data_sources if {
	changes := [
		rc("terraform_data.a", "managed", ["create"], {}),
		rc("terraform_data.b", "managed", ["no-op"], {}),
		rc("data.terraform_data.c", "data", ["read"], {}),
		rc("terraform_data.d", "managed", ["delete", "create"], {}),
	]
	{c.address | some c in lib.changes} == {"terraform_data.a", "terraform_data.d"} with input as {"resource_changes": changes}
}

test_changes_without_resource_changes if {
	count(lib.changes) == 0 with input as {"format_version": "1.2"}
}

test_deletes_and_replaces if {
	lib.deletes(rc("a", "managed", ["delete"], null))
	lib.deletes(rc("a", "managed", ["create", "delete"], {}))
	not lib.deletes(rc("a", "managed", ["update"], {}))
	lib.replaces(rc("a", "managed", ["delete", "create"], {}))
	not lib.replaces(rc("a", "managed", ["delete"], null))
	lib.verb(rc("a", "managed", ["delete", "create"], {})) == "replacing"
	lib.verb(rc("a", "managed", ["delete"], null)) == "deleting"
}

test_writes if {
	lib.writes(rc("a", "managed", ["create"], {}))
	lib.writes(rc("a", "managed", ["create", "delete"], {}))
	not lib.writes(rc("a", "managed", ["delete"], null))
	not lib.writes(rc("a", "managed", ["no-op"], {}))
}

test_matches_any if {
	lib.matches_any(["module.legacy.*"], "module.legacy.aws_s3_bucket.b[\"x\"]")
	lib.matches_any(["a.b", "terraform_data.*"], "terraform_data.vpc")
	not lib.matches_any(["module.legacy.*"], "module.current.aws_s3_bucket.b")
	not lib.matches_any([], "x")
}
