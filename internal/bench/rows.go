package main

// wallCPURows is wallRow with a second row of the sides' CPU time (user and system, their
// waited-for children included: terraform's): on a shared machine the wall time's ratio
// moves with the neighbours' load, the CPU time's much less.
func wallCPURows(what string, target float64) func(a, b Stats) []Row {
	return func(a, b Stats) []Row {
		return append(wallRow(what, target)(a, b),
			Row{What: what + ": CPU (user+sys)", A: ms(a.CPU()), B: ms(b.CPU()), Ratio: ratio(a.CPU(), b.CPU()), Target: target})
	}
}
