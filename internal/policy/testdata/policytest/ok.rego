package ok

deny contains msg if {
	some rc in input.resource_changes
	msg := sprintf("%s is bad", [rc.address])
}

number := to_number(input.n)
