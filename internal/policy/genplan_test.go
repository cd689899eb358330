package policy

import (
	"encoding/json"
	"fmt"
)

// genPlan builds a `terraform show -json`-shaped plan with n resource changes,
// with planned_values, prior_state and configuration filled in like a real
// plan (about 3 KB per resource), for benchmarks and the decoder tests.
func genPlan(n int) []byte {
	var (
		changes   = make([]any, 0, n)
		planned   = make([]any, 0, n)
		prior     = make([]any, 0, n)
		configRes = make([]any, 0, n)
	)
	types := []string{"aws_instance", "aws_s3_bucket", "aws_security_group", "aws_db_instance", "google_compute_instance", "azurerm_linux_virtual_machine", "aws_ebs_volume", "terraform_data"}
	for i := range n {
		typ := types[i%len(types)]
		name := fmt.Sprintf("r%05d", i)
		addr := typ + "." + name
		before := genAttrs(typ, i, false)
		after := genAttrs(typ, i, true)
		actions := []string{"update"}
		switch i % 10 {
		case 0:
			actions = []string{"create"}
			before = nil
		case 1:
			actions = []string{"no-op"}
			after = before
		case 2:
			actions = []string{"delete", "create"}
		case 3:
			if i%100 == 3 {
				actions = []string{"delete"}
				after = nil
			}
		}
		provider := "registry.terraform.io/hashicorp/" + map[byte]string{'a': "aws", 'g': "google", 'z': "azurerm", 't': "terraform"}[typ[0]]
		if typ[0] == 'a' && typ[1] == 'z' {
			provider = "registry.terraform.io/hashicorp/azurerm"
		}
		changes = append(changes, map[string]any{
			"address": addr, "mode": "managed", "type": typ, "name": name,
			"provider_name": provider,
			"change": map[string]any{
				"actions": actions, "before": before, "after": after,
				"after_unknown":    map[string]any{"id": before == nil, "arn": before == nil},
				"before_sensitive": map[string]any{}, "after_sensitive": map[string]any{"password": true},
			},
		})
		if after != nil {
			planned = append(planned, map[string]any{
				"address": addr, "mode": "managed", "type": typ, "name": name,
				"provider_name": provider, "schema_version": 1, "values": after,
				"sensitive_values": map[string]any{"tags": map[string]any{}},
			})
		}
		if before != nil {
			prior = append(prior, map[string]any{
				"address": addr, "mode": "managed", "type": typ, "name": name,
				"provider_name": provider, "schema_version": 1, "values": before,
				"sensitive_values": map[string]any{"tags": map[string]any{}},
			})
		}
		configRes = append(configRes, map[string]any{
			"address": addr, "mode": "managed", "type": typ, "name": name,
			"provider_config_key": typ[:3],
			"expressions": map[string]any{
				"tags":          map[string]any{"constant_value": map[string]any{"owner": "team-a"}},
				"instance_type": map[string]any{"references": []string{"var.size"}},
			},
			"schema_version": 1,
		})
	}
	plan := map[string]any{
		"format_version":    "1.2",
		"terraform_version": "1.5.7",
		"variables":         map[string]any{"size": map[string]any{"value": "t3.micro"}},
		"planned_values":    map[string]any{"root_module": map[string]any{"resources": planned}},
		"resource_changes":  changes,
		"prior_state": map[string]any{
			"format_version": "1.0", "terraform_version": "1.5.7",
			"values": map[string]any{"root_module": map[string]any{"resources": prior}},
		},
		"configuration": map[string]any{"root_module": map[string]any{"resources": configRes}},
		"timestamp":     "2026-01-02T03:04:05Z",
		"errored":       false,
	}
	b, err := json.Marshal(plan)
	if err != nil {
		panic(err)
	}
	return b
}

func genAttrs(typ string, i int, after bool) map[string]any {
	v := i
	if after {
		v = i + 1
	}
	m := map[string]any{
		"id":        fmt.Sprintf("id-%08d", i),
		"arn":       fmt.Sprintf("arn:aws:ec2:eu-west-1:123456789012:%s/%08d", typ, i),
		"tags":      map[string]any{"owner": "team-a", "env": "prod", "rev": fmt.Sprint(v)},
		"tags_all":  map[string]any{"owner": "team-a", "env": "prod", "rev": fmt.Sprint(v), "managed-by": "terraform"},
		"timeouts":  nil,
		"count":     v % 7,
		"enabled":   v%2 == 0,
		"user_data": fmt.Sprintf("#!/bin/sh\necho \"hello %d\" > /tmp/x\n", v),
		"ebs_block_device": []any{
			map[string]any{"device_name": "/dev/sdb", "volume_size": 20 + v%5, "volume_type": "gp3", "encrypted": true},
		},
		"root_block_device": []any{
			map[string]any{"volume_size": 8, "volume_type": "gp3", "encrypted": v%3 != 0, "kms_key_id": "", "tags": map[string]any{}},
		},
	}
	switch typ {
	case "aws_instance":
		m["instance_type"] = []string{"t3.micro", "t3.large", "m5.xlarge", "c5.9xlarge"}[v%4]
		m["ami"] = "ami-0123456789abcdef0"
	case "aws_security_group":
		m["ingress"] = []any{
			map[string]any{"from_port": 443, "to_port": 443, "protocol": "tcp", "cidr_blocks": []string{"0.0.0.0/0"}, "ipv6_cidr_blocks": []string{}, "description": "https", "self": false, "security_groups": []string{}, "prefix_list_ids": []string{}},
			map[string]any{"from_port": 22, "to_port": 22, "protocol": "tcp", "cidr_blocks": []string{fmt.Sprintf("10.%d.0.0/16", v%256)}, "ipv6_cidr_blocks": []string{}, "description": "ssh", "self": false, "security_groups": []string{}, "prefix_list_ids": []string{}},
		}
	case "aws_db_instance":
		m["storage_encrypted"] = v%5 != 0
		m["instance_class"] = "db.t3.micro"
		m["password"] = "hunter2"
	case "google_compute_instance":
		m["machine_type"] = []string{"e2-small", "n2-standard-4", "n2-highmem-64"}[v%3]
		m["labels"] = map[string]any{"owner": "team-a"}
	case "azurerm_linux_virtual_machine":
		m["size"] = []string{"Standard_B2s", "Standard_D4s_v5", "Standard_M128s"}[v%3]
	case "aws_ebs_volume":
		m["encrypted"] = v%4 != 0
		m["size"] = 100
	}
	return m
}
