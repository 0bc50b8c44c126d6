// SPDX-License-Identifier: MIT

// Command gocron times the Go cron libraries a user would pick,
// robfig/cron (v3) and gorhill/cronexpr, on the expression set of
// bench/bench_cron.c: microseconds per parse and per chained Next, each
// call from the previous occurrence, restarting every chainLen calls, in
// the zone of the case (time.LoadLocation); the median of repeats runs
// after a warm-up. Built by scripts/bench.sh from Debian's packages:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build
//
// Output: a table, then per case the tab-separated line
//
//	bench  PEER  EXPR  ZONE  PARSE_US  NEXT_US  DIGEST  CONFIG
//
// PEER is robfig or cronexpr; DIGEST is COUNT:SUM of the occurrences
// (seconds since the epoch) of digestLen chained calls from each of
// digestOrigins, as bench_cron.c computes it. robfig has neither L nor #:
// those cases are left out for it.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gorhill/cronexpr"
	"github.com/robfig/cron"
)

const (
	repeats     = 7
	parseCalls  = 20000
	nextCalls   = 20000
	warmupCalls = 20000
	chainLen    = 300
	digestLen   = 20
)

var (
	exprs         = []string{"* * * * *", "*/5 * * * *", "0 9 * * 1-5", "0 0 29 2 *", "*/30 * * * * *", "0 0 9 * * *"}
	zones         = []string{"UTC", "Europe/Paris", "America/New_York"}
	extra         = [][2]string{{"15 10 L * ?", "UTC"}, {"0 12 * * 5#3", "UTC"}}
	origin        = int64(1735689600)
	digestOrigins = []int64{1735689600, 1741503300, 1743296100, 1761440100, 1762062900}
	sink          int64
)

type nexter func(time.Time) time.Time

type peer struct {
	name   string
	config string
	parse  func(expr string) (nexter, error)
}

var robfigSeconds = cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

func robfigParse(expr string) (nexter, error) {
	if strings.ContainsAny(expr, "L#") {
		return nil, fmt.Errorf("not supported")
	}
	var s cron.Schedule
	var err error
	if len(strings.Fields(expr)) == 6 {
		s, err = robfigSeconds.Parse(expr)
	} else {
		s, err = cron.ParseStandard(expr)
	}
	if err != nil {
		return nil, err
	}
	return s.Next, nil
}

// cronexpr reads six fields as minute..year; bench_cron.c's six fields
// have seconds first, so they get a year field.
func cronexprParse(expr string) (nexter, error) {
	if len(strings.Fields(expr)) == 6 {
		expr += " *"
	}
	e, err := cronexpr.Parse(expr)
	if err != nil {
		return nil, err
	}
	return e.Next, nil
}

var peers = []peer{
	{"robfig", "v3 parser, seconds for six fields", robfigParse},
	{"cronexpr", "seven fields for six", cronexprParse},
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func microsPerCall(calls int, body func(int)) float64 {
	body(warmupCalls)
	runs := make([]float64, repeats)
	for r := range runs {
		start := time.Now()
		body(calls)
		runs[r] = float64(time.Since(start).Nanoseconds()) / 1000 / float64(calls)
	}
	return median(runs)
}

func digest(next nexter, loc *time.Location) string {
	count, sum := 0, int64(0)
	for _, o := range digestOrigins {
		t := time.Unix(o, 0).In(loc)
		for i := 0; i < digestLen; i++ {
			t = next(t)
			if t.IsZero() {
				break
			}
			sum += t.Unix()
			count++
		}
	}
	return fmt.Sprintf("%d:%d", count, sum)
}

func runCase(p peer, expr, zone string, lines *[]string) error {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return err
	}
	next, err := p.parse(expr)
	if err != nil {
		return nil // left out: the library cannot read it
	}
	parseUs := microsPerCall(parseCalls, func(calls int) {
		for i := 0; i < calls; i++ {
			if n, _ := p.parse(expr); n == nil {
				sink++
			}
		}
	})
	start := time.Unix(origin, 0).In(loc)
	nextUs := microsPerCall(nextCalls, func(calls int) {
		t := start
		for i := 0; i < calls; i++ {
			if i%chainLen == 0 {
				t = start
			}
			if t = next(t); t.IsZero() {
				t = start
			}
		}
		sink += t.Unix()
	})
	fmt.Printf("%-9s %-18s %-18s %9.2f %9.3f\n", p.name, expr, zone, parseUs, nextUs)
	*lines = append(*lines, fmt.Sprintf("bench\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s",
		p.name, expr, zone, parseUs, nextUs, digest(next, loc), p.config))
	return nil
}

func main() {
	var cases [][2]string
	for _, e := range exprs {
		for _, z := range zones {
			cases = append(cases, [2]string{e, z})
		}
	}
	cases = append(cases, extra...)
	fmt.Printf("%-9s %-18s %-18s %9s %9s\n", "peer", "expression", "zone", "parse us", "next us")
	var lines []string
	for _, p := range peers {
		for _, c := range cases {
			if err := runCase(p, c[0], c[1], &lines); err != nil {
				fmt.Fprintf(os.Stderr, "gocron: %s %s: %v\n", c[0], c[1], err)
				os.Exit(1)
			}
		}
	}
	fmt.Println(strings.Join(lines, "\n"))
}
