package ok_test

import data.ok

test_pass if {
	ok.deny == {"a.b is bad"} with input as {"resource_changes": [{"address": "a.b"}]}
}

test_fail if {
	count(ok.deny) == 2 with input as {"resource_changes": [{"address": "a.b"}]}
}

test_print if {
	print("hello from a test")
	count(ok.deny) == 0 with input as {}
}

test_builtin_error if {
	ok.number == 1 with input as {"n": "not a number"}
}

test_data_file if {
	data.settings.limit == 3
}
