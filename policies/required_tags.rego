# METADATA
# title: Required tags and labels
# description: |
#   Deny creating or updating a taggable AWS, Azure or Google Cloud resource
#   that lacks a required tag (AWS, Azure: tags; Google Cloud: labels). Tags
#   set by provider default_tags (tags_all) and default labels
#   (effective_labels) count. Resources whose tags are unknown until apply are
#   not judged.
#
#   Settings (optional):
#     data.tfgate.required_tags  keys every taggable resource needs; default ["owner"]
package tfgate.rules.required_tags

import data.tfgate.lib

deny contains {"msg": msg, "address": rc.address, "missing": missing} if {
	some rc in lib.written
	attrs := tag_attributes[provider(rc.type)]
	_ = rc.change.after[attrs[0]] # the schema has tags (null when unset)
	count([1 | some attr in attrs; object.get(rc.change, ["after_unknown", attr], false) == true]) == 0
	missing := sort([k |
		some k in required
		count([1 | some attr in attrs; _ = rc.change.after[attr][k]]) == 0
	])
	count(missing) > 0
	msg := sprintf(
		"%s: missing required %s %s (required: data.tfgate.required_tags)",
		[rc.address, noun(rc.type, count(missing)), concat(", ", missing)],
	)
}

default required := ["owner"]

# A setting that is not a list of strings (the settings policy denies it)
# still requires "owner" and any key it names: required_tags: team requires
# owner and team.
required := lib.strings_or(data.tfgate.required_tags, ["owner"])

# tag_attributes names, by provider, the attributes holding tags: the
# configured ones first, then those that add provider defaults. Unknown
# attributes (known after apply) are not judged.
tag_attributes := {
	"aws": ["tags", "tags_all"],
	"azurerm": ["tags"],
	"google": ["labels", "effective_labels", "terraform_labels"],
}

provider(type) := substring(type, 0, indexof(type, "_"))

noun(type, n) := concat("", [word, plural]) if {
	word := tag_word(type)
	plural := {true: "s", false: ""}[n > 1]
}

tag_word(type) := "label" if {
	startswith(type, "google_")
} else := "tag"
