package cost

import (
	"strings"
	"testing"
)

func TestParseMoney(t *testing.T) {
	for _, tc := range []struct {
		in    string
		exact bool
		want  Money
		err   string
	}{
		{"420", true, 42000, ""},
		{"0.07", true, 7, ""},
		{"12.5", true, 1250, ""},
		{"12.500", true, 1250, ""},
		{"-3.25", false, -325, ""},
		{"30.36792", false, 3037, ""},
		{"30.365", false, 3037, ""},
		{"-30.365", false, -3037, ""},
		{"1303.28", false, 130328, ""},
		{"12.345", true, 0, "digits below the cent"},
		{"NaN", true, 0, "not a decimal amount"},
		{"Infinity", false, 0, "not a decimal amount"},
		{"1e9", true, 0, "not a decimal amount"},
		{"0x10", true, 0, "not a decimal amount"},
		{"", true, 0, "not a decimal amount"},
		{"1.", true, 0, "not a decimal amount"},
		{".5", true, 0, "not a decimal amount"},
		{"99999999999999999999999", true, 0, "too large"},
		{"1000000001", true, 0, "too large"},
		{"1000000000", true, 100_000_000_000, ""},
	} {
		got, err := parseMoney(tc.in, tc.exact)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseMoney(%q) = %v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseMoney(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		m        Money
		currency string
		format   string
		delta    string
		plain    string
	}{
		{42000, "USD", "$420", "+$420/mo", "420.00"},
		{130328, "USD", "$1,303.28", "+$1,303.28/mo", "1303.28"},
		{-1250, "EUR", "-€12.50", "-€12.50/mo", "-12.50"},
		{0, "USD", "$0", "$0/mo", "0.00"},
		{700, "CHF", "CHF 7", "+CHF 7/mo", "7.00"},
		{123456789012, "GBP", "£1,234,567,890.12", "+£1,234,567,890.12/mo", "1234567890.12"},
	} {
		if got := tc.m.Format(tc.currency); got != tc.format {
			t.Errorf("Format(%d) = %q, want %q", tc.m, got, tc.format)
		}
		if got := tc.m.FormatDelta(tc.currency); got != tc.delta {
			t.Errorf("FormatDelta(%d) = %q, want %q", tc.m, got, tc.delta)
		}
		if got := tc.m.Plain(); got != tc.plain {
			t.Errorf("Plain(%d) = %q, want %q", tc.m, got, tc.plain)
		}
	}
}
