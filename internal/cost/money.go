package cost

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tfgate/tfgate/internal/english"
)

// Money is an amount in hundredths of the currency's unit (cents): sums and differences
// are exact, and rendering never shows float drift.
type Money int64

// MaxMoney bounds every amount read (a billion a month, in cents): a larger price is a
// typo or a hostile file, and sums of many such prices still fit in an int64.
const MaxMoney Money = 100_000_000_000

// parseMoney reads a decimal such as "420", "-12.5" or "0.07". exact refuses digits below
// the cent (a catalogue's prices); otherwise they are rounded half away from zero (Infracost
// prints hourly rates times 730 with many decimals). Exponents, NaN, infinities, and
// amounts beyond MaxMoney are refused.
func parseMoney(s string, exact bool) (Money, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	whole, frac, _ := strings.Cut(t, ".")
	if whole == "" || !digits(whole) || (strings.Contains(t, ".") && (frac == "" || !digits(frac))) {
		return 0, fmt.Errorf("%q is not a decimal amount", s)
	}
	if len(whole) > 12 {
		return 0, fmt.Errorf("%s is too large (at most %s)", s, MaxMoney.Plain())
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal amount", s)
	}
	cents := w * 100
	if len(frac) > 2 {
		if exact && strings.Trim(frac[2:], "0") != "" {
			return 0, fmt.Errorf("%s has digits below the cent", s)
		}
		if frac[2] >= '5' {
			cents++
		}
		frac = frac[:2]
	}
	for len(frac) < 2 {
		frac += "0"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	cents += f
	if Money(cents) > MaxMoney {
		return 0, fmt.Errorf("%s is too large (at most %s)", s, MaxMoney.Plain())
	}
	if neg {
		cents = -cents
	}
	return Money(cents), nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// errNegative is returned for a negative price in a catalogue.
var errNegative = errors.New("is negative: a price is at least 0")

// Plain is the amount as a decimal with two digits after the point ("-12.50"): the number
// policies read.
func (m Money) Plain() string {
	sign := ""
	v := int64(m)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// symbols are the currencies written with a sign before the amount; others are written
// with their code ("CHF 12").
var symbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

// Format writes the amount for people: "$1,303.28", "$420" (no cents when there are none),
// "-€12.50", "CHF 7".
func (m Money) Format(currency string) string {
	sign := ""
	v := int64(m)
	if v < 0 {
		sign, v = "-", -v
	}
	amount := english.Count(int(v / 100)) // MaxMoney keeps it well inside an int
	if v%100 != 0 {
		amount += fmt.Sprintf(".%02d", v%100)
	}
	if s, ok := symbols[currency]; ok {
		return sign + s + amount
	}
	return sign + currency + " " + amount
}

// FormatDelta writes a change per month with its sign: "+$420/mo", "-$12.50/mo", "$0/mo".
func (m Money) FormatDelta(currency string) string {
	sign := ""
	if m > 0 {
		sign = "+"
	}
	return sign + m.Format(currency) + "/mo"
}
