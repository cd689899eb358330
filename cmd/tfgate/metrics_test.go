package main

import (
	"bytes"
	"errors"
	"io"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/rogpeppe/go-internal/testscript"
)

// promcheck FILE [FAMILY...] parses FILE with expfmt's OpenMetrics 1.0 parser (strict: the
// specification's grammar, # EOF last, units suffixing names, counters ending in _total)
// and with the Prometheus text format 0.0.4 parser the node-exporter textfile collector
// uses; each FAMILY named must be there with at least one sample (a counter by its _total
// name, as expfmt calls it). Like `promtool check metrics`, without promtool.
func cmdPromCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: promcheck FILE [FAMILY...]")
	}
	text := []byte(ts.ReadFile(args[0]))
	fams := map[string]int{}
	for _, format := range []expfmt.Format{expfmt.FmtOpenMetrics_1_0_0, expfmt.NewFormat(expfmt.TypeTextPlain)} {
		dec := expfmt.NewDecoder(bytes.NewReader(text), format)
		for {
			var f dto.MetricFamily
			err := dec.Decode(&f)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				ts.Fatalf("%s is not valid %s: %v", args[0], format, err)
			}
			if strings.HasPrefix(string(format), expfmt.OpenMetricsType) {
				fams[f.GetName()] = len(f.GetMetric())
			}
		}
	}
	for _, name := range args[1:] {
		if fams[name] == 0 {
			ts.Fatalf("%s has no samples of %s", args[0], name)
		}
	}
}
