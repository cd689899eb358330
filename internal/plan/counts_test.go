package plan

import "testing"

func TestCounts(t *testing.T) {
	for s, want := range map[Summary]string{
		{}: "no changes", {Add: 2, Destroy: 1}: "+2 -1", {Replace: 1, Read: 1, Outputs: 2}: "±1 <=1 2 outputs",
		{Import: 1, Move: 2, Forget: 1, Actions: 1, Change: 3}: "~3 ⇐1 →2 ⊘1 !1",
	} {
		if got := s.Counts(); got != want {
			t.Errorf("Counts(%+v) = %q, want %q", s, got, want)
		}
	}
}
