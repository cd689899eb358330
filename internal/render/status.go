package render

import (
	"strings"

	"github.com/tfgate/tfgate/internal/report"
)

// How a status reads, in one place. There are three models, each for its own concept:
//   - report.Status, a project's status in a run (planned, applied, drifted, failed, …):
//     statusWord, statusIcon (markdown), statusColour (terminal), and DriftWord/DriftIcon
//     for a drift run, where "failed" reads "error" and drifted and pending have their own
//     icons;
//   - outcome (apply.go), how a gate or apply run reads a project's status: pending before
//     merge, refused after, would apply in a dry run;
//   - report.GateState, where the gate's verdict leaves a pull request: stateWord, stateIcon.

// statusWord is how a status reads in a sentence or a table cell.
func statusWord(s report.Status) string {
	return strings.ReplaceAll(string(s), "_", " ")
}

func statusColour(s report.Status) string {
	switch s {
	case report.StatusNotStarted:
		return ansiDim
	case report.StatusRefused, report.StatusDrifted, report.StatusPending, report.StatusCheckFailed:
		return ansiYellow
	case report.StatusFailed, report.StatusInterrupted:
		return ansiRed
	}
	return ansiGreen
}

func statusIcon(s report.Status) string {
	switch s {
	case report.StatusFailed, report.StatusInterrupted:
		return "💥"
	case report.StatusNotStarted, report.StatusRefused:
		return "⏭"
	}
	return "✅"
}

// DriftWord is how a drift status reads ("error" for a project that could not be checked).
func DriftWord(s report.Status) string {
	if s == report.StatusFailed {
		return "error"
	}
	return statusWord(s)
}

// DriftIcon is a drift status's emoji.
func DriftIcon(s report.Status) string {
	switch s {
	case report.StatusDrifted:
		return "⚡"
	case report.StatusPending:
		return "⏳"
	case report.StatusCheckFailed:
		return "🚨"
	case report.StatusInSync:
		return "✅"
	}
	return statusIcon(s)
}

// stateWord is how a verdict's state reads after "Gate:".
func stateWord(state report.GateState) string {
	switch state {
	case report.GateAllowed:
		return "allowed"
	case report.GatePending:
		return "pending"
	case report.GateBlocked, report.GateError:
		return "refused"
	}
	return clean(string(state))
}

func stateIcon(state report.GateState) string {
	switch state {
	case report.GateAllowed:
		return "✅"
	case report.GatePending:
		return "⏳"
	case report.GateBlocked, report.GateError:
		return "❌"
	}
	return "❔"
}
