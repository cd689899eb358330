package plangen

import "fmt"

// kind is a resource type with the attribute shapes of its real provider counterpart.
type kind struct {
	typ       string
	forces    string   // attribute that forces replacement
	computed  []string // attributes known only after apply on create
	values    func(i, version int) map[string]any
	sensitive func() any
}

var kinds = []kind{instance, securityGroup, database, bucketPolicy, terraformData}

func noSensitive() any { return map[string]any{} }

func tags(i, v int) map[string]any {
	t := map[string]any{"Name": fmt.Sprintf("res-%d", i), "env": "prod", "team": "platform"}
	if v == 1 && i%2 == 1 {
		t["team"] = "payments"
	}
	return t
}

var instance = kind{
	typ: "aws_instance", forces: "ami", computed: []string{"id", "arn", "private_ip"},
	values: func(i, v int) map[string]any {
		size := []string{"t3.micro", "t3.small"}[v]
		return map[string]any{
			"id": fmt.Sprintf("i-0%015x", i), "arn": fmt.Sprintf("arn:aws:ec2:eu-west-1:123456789012:instance/i-0%015x", i),
			"ami": fmt.Sprintf("ami-0%07d", i+v), "instance_type": size, "private_ip": fmt.Sprintf("10.0.%d.%d", i/250%250, i%250),
			"tags": tags(i, v), "tags_all": tags(i, v),
			"vpc_security_group_ids": []any{fmt.Sprintf("sg-%08x", i), "sg-0000shared"},
			"root_block_device": []any{map[string]any{
				"volume_size": 20 + 10*v, "volume_type": "gp3", "encrypted": true, "delete_on_termination": true,
				"kms_key_id": "arn:aws:kms:eu-west-1:123456789012:key/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
			}},
			"metadata_options":     []any{map[string]any{"http_tokens": "required", "http_endpoint": "enabled", "http_put_response_hop_limit": 1}},
			"user_data":            fmt.Sprintf("#!/bin/bash\nset -euo pipefail\necho 'bootstrapping node %d'\ncurl -fsSL https://example.internal/bootstrap.sh | bash -s -- --role web --env prod\n", i),
			"credit_specification": []any{}, "ebs_block_device": []any{}, "monitoring": v == 1, "source_dest_check": true,
		}
	},
	sensitive: func() any {
		return map[string]any{"tags": map[string]any{}, "tags_all": map[string]any{}, "root_block_device": []any{map[string]any{}}}
	},
}

var securityGroup = kind{
	typ: "aws_security_group", forces: "name", computed: []string{"id", "arn"},
	values: func(i, v int) map[string]any {
		cidr := []any{"10.0.0.0/8"}
		if v == 1 && i%3 == 0 {
			cidr = []any{"10.0.0.0/8", "172.16.0.0/12"}
		}
		rule := func(port int, blocks []any) map[string]any {
			return map[string]any{
				"from_port": port, "to_port": port, "protocol": "tcp", "cidr_blocks": blocks, "description": fmt.Sprintf("port %d", port),
				"ipv6_cidr_blocks": []any{}, "prefix_list_ids": []any{}, "security_groups": []any{}, "self": false,
			}
		}
		return map[string]any{
			"id": fmt.Sprintf("sg-%08x", i), "arn": fmt.Sprintf("arn:aws:ec2:eu-west-1:123456789012:security-group/sg-%08x", i),
			"name": fmt.Sprintf("sg-%d", i), "description": "Managed by Terraform", "vpc_id": "vpc-0123456789abcdef0",
			"ingress":                []any{rule(443, cidr), rule(80, []any{"0.0.0.0/0"}), rule(22, []any{"10.1.0.0/16"})},
			"egress":                 []any{rule(0, []any{"0.0.0.0/0"})},
			"tags":                   tags(i, v),
			"revoke_rules_on_delete": false,
		}
	},
	sensitive: noSensitive,
}

var database = kind{
	typ: "aws_db_instance", forces: "identifier", computed: []string{"id", "arn", "endpoint", "address"},
	values: func(i, v int) map[string]any {
		return map[string]any{
			"id": fmt.Sprintf("db-%d", i), "arn": fmt.Sprintf("arn:aws:rds:eu-west-1:123456789012:db:db-%d", i),
			"identifier": fmt.Sprintf("db-%d", i), "engine": "postgres", "engine_version": []string{"15.4", "15.5"}[v],
			"instance_class": "db.t3.medium", "allocated_storage": 100, "username": "app",
			"password":             fmt.Sprintf("generated-db-password-%d-v%d", i, v),
			"endpoint":             fmt.Sprintf("db-%d.abcdefghijkl.eu-west-1.rds.amazonaws.com:5432", i),
			"address":              fmt.Sprintf("db-%d.abcdefghijkl.eu-west-1.rds.amazonaws.com", i),
			"parameter_group_name": "default.postgres15", "multi_az": true, "backup_retention_period": 7,
			"tags": tags(i, v),
		}
	},
	sensitive: func() any { return map[string]any{"password": true, "tags": map[string]any{}} },
}

var bucketPolicy = kind{
	typ: "aws_s3_bucket_policy", forces: "bucket", computed: []string{"id"},
	values: func(i, v int) map[string]any {
		action := []string{"s3:GetObject", "s3:GetObject\",\"s3:ListBucket"}[v]
		return map[string]any{
			"id": fmt.Sprintf("bucket-%d", i), "bucket": fmt.Sprintf("bucket-%d", i),
			"policy": fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Sid":"AllowRead","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:role/reader-%d"},"Action":["%s"],"Resource":["arn:aws:s3:::bucket-%d","arn:aws:s3:::bucket-%d/*"]}]}`, i, action, i, i),
		}
	},
	sensitive: noSensitive,
}

var terraformData = kind{
	typ: "terraform_data", forces: "triggers_replace", computed: []string{"id", "output"},
	values: func(i, v int) map[string]any {
		in := map[string]any{
			"name": fmt.Sprintf("svc-%d", i), "replicas": 2 + v, "token": fmt.Sprintf("generated-token-%d-v%d", i, v),
			"ports": []any{8080, 8443}, "labels": map[string]any{"app": "svc", "tier": []string{"web", "api"}[v]},
		}
		return map[string]any{
			"id": fmt.Sprintf("0f1e2d3c-%04d-6978-8a9b-0c1d2e3f4a5b", i%10000), "input": in, "output": in,
			"triggers_replace": []any{fmt.Sprintf("rev-%d", v)},
		}
	},
	sensitive: func() any {
		return map[string]any{"input": map[string]any{"token": true}, "output": map[string]any{"token": true}, "triggers_replace": []any{false}}
	},
}

// dataKind is the data source read during apply.
var dataKind = kind{
	typ: "aws_iam_policy_document", computed: []string{"id", "json"},
	values: func(i, v int) map[string]any {
		return map[string]any{
			"id": fmt.Sprintf("%d", i), "json": "{}",
			"statement": []any{map[string]any{"actions": []any{"s3:GetObject"}, "resources": []any{fmt.Sprintf("arn:aws:s3:::bucket-%d/*", i)}, "effect": "Allow"}},
		}
	},
	sensitive: noSensitive,
}
