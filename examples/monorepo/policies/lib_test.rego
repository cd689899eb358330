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

test_exact_address_always_matches if {
	address := `module.app.aws_db_instance.main["eu"]`
	lib.matches_any([address], address)
	lib.matches_any([`aws_route53_record.r["*.example.com"]`], `aws_route53_record.r["*.example.com"]`)
	not lib.matches_any([address], `module.app.aws_db_instance.main["us"]`)
}

test_brackets_are_literal_in_globs if {
	lib.matches_any(["*.web[*]"], `module.x.aws_instance.web["eu"]`)
	lib.matches_any(["*.web[*]"], "aws_instance.web[0]")
	not lib.matches_any(["*.web[*]"], "aws_instance.web")
	lib.matches_any(["aws_instance.web[?]"], "aws_instance.web[3]")
	not lib.matches_any(["aws_instance.web[?]"], "aws_instance.web[10]")
	lib.matches_any([`module.app[*].aws_db_instance.main["eu"]`], `module.app["a"].aws_db_instance.main["eu"]`)

	# [abc] is not a character class
	not lib.matches_any(["x[abc]"], "xa")
	lib.matches_any(["*[abc]"], "x[abc]")
}

test_glob_wildcards_and_escapes if {
	lib.matches_any(["aws_s3_bucket.{logs,tmp}"], "aws_s3_bucket.tmp")
	not lib.matches_any(["aws_s3_bucket.{logs,tmp}"], "aws_s3_bucket.data")
	lib.matches_any([`aws_instance.web\[0\]`], "aws_instance.web[0]")
	lib.matches_any([`*["\*.example.com"]`], `aws_route53_record.r["*.example.com"]`)
	not lib.matches_any([`*["\*.example.com"]`], `aws_route53_record.r["www.example.com"]`)
	lib.matches_any([`*\\[0]`], `a\[0]`)
}

test_patterns_that_are_not_strings_are_ignored if {
	lib.matches_any([5, null, "a.b"], "a.b")
	not lib.matches_any([5], "5")
	not lib.matches_any("a.b", "a.b")
}

test_setting_readers if {
	lib.allow_list(["a", 5, "b"]) == ["a", "b"]
	lib.allow_list("a") == []
	lib.allow_list(null) == []
	lib.strings_or(["x"], ["owner"]) == ["x"]
	lib.strings_or([], ["owner"]) == []
	lib.strings_or("team", ["owner"]) == ["owner", "team"]
	lib.strings_or(["owner", 5], ["owner"]) == ["owner"]
	lib.strings_or(7, ["owner"]) == ["owner"]
	lib.numbers_or([5432], [22, 3389]) == [5432]
	lib.numbers_or(["22", "5432"], [22, 3389]) == [22, 3389, 5432]
	lib.numbers_or(5432, [22, 3389]) == [22, 3389, 5432]
	lib.numbers_or("ssh", [22, 3389]) == [22, 3389]
	lib.number(50, 100) == 50
	lib.number("50", 100) == 50
	lib.number("fifty", 100) == 100
	lib.number(null, 100) == 100
}
