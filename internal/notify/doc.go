// Package notify is tfgate's notifier: everything a run publishes beyond stdout lives here —
// the plan's sticky pull-request comment (split by render, posted and found again here), the
// commit statuses tfgate/plan, tfgate/gate and tfgate/apply, the gate line in the plan
// comment, the apply's audit comment, the job summary and step outputs, the issue kept per
// project (Tracker: found by marker and author, opened, updated, closed and reopened with a
// note; drift issues are built on it) and the drift webhook. It owns the marker grammar
// and the one rule for which comments and issues are tfgate's own (Own, FindRecords).
// Everything it sends follows one retry policy, github.RetryPolicy: a jittered backoff on
// 5xx and rate limits, and never a second POST after one that got no answer or a 5xx
// (GitHub may have done it): a comment or an issue is looked for before it is posted again;
// every request and a run's whole publishing are bounded in time. What a run decides
// (plans, the gate, drift statuses) is not here, nor is the text (render) or the GitHub
// calls themselves (github).
package notify
