package terraform

import "testing"

func TestPlanDetail(t *testing.T) {
	tests := []struct {
		p    Progress
		want string
	}{
		{Progress{}, ""},
		{Progress{Refreshing: 1}, "0 resources refreshed"},
		{Progress{Refreshing: 4215, Refreshed: 4210}, "4,210 resources refreshed"},
		{Progress{Refreshing: 1, Refreshed: 1}, "1 resource refreshed"},
		{Progress{Refreshed: 4210, Planned: 12}, "12 changes planned"},
		{Progress{Planned: 10000, Summary: &ChangeSummary{Add: 10000, Change: 2}}, "10,000 to add, 2 to change, 0 to destroy"},
		{Progress{Summary: &ChangeSummary{Import: 3, Remove: 1}}, "3 to import, 0 to add, 0 to change, 1 to destroy"},
	}
	for _, tt := range tests {
		if got, _ := PlanDetail(tt.p); got != tt.want {
			t.Errorf("PlanDetail(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestApplyDetail(t *testing.T) {
	tests := []struct {
		p    Progress
		want string
	}{
		{Progress{}, ""},
		{Progress{Planned: 2, ToApply: 3}, "0 of 3 applied"},
		{Progress{ToApply: 10000, Applying: 1300, Applied: 1200}, "1,200 of 10,000 applied"},
		{Progress{ToApply: 10, Applied: 4, Failed: 2}, "6 of 10 applied, 2 failed"},
		{Progress{ToApply: 3, Applied: 3, Summary: &ChangeSummary{Add: 1, Remove: 2, Operation: "apply"}}, "1 added, 0 changed, 2 destroyed"},
	}
	for _, tt := range tests {
		if got, _ := ApplyDetail(tt.p); got != tt.want {
			t.Errorf("ApplyDetail(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
