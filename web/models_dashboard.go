package web

import (
	"strconv"
	"time"
)

// KindConsents is one row of the dashboard's "who may be contacted" table: a record kind's
// live records, how many of them hold each consent granted and live (deadline not passed),
// and its anonymised records, which no longer count as anyone's.
type KindConsents struct {
	Key        string // the API's name of the kind's counts ("formSubmissions")
	Label      string // "Form submissions"
	Live       int
	Primary    int
	Email      int
	Phone      int
	Anonymised int
}

// Plus is the sum of two rows (the total row).
func (k KindConsents) Plus(o KindConsents) KindConsents {
	k.Live += o.Live
	k.Primary += o.Primary
	k.Email += o.Email
	k.Phone += o.Phone
	k.Anonymised += o.Anonymised
	return k
}

// contactableTotal sums the rows, under the key "total".
func contactableTotal(rows []KindConsents) KindConsents {
	t := KindConsents{Key: "total", Label: "Total"}
	for _, r := range rows {
		t = t.Plus(r)
	}
	return t
}

// ChartSeries is one stacked series of a Chart.
type ChartSeries struct {
	Name string
}

// ChartColumn is one column of a Chart: a short axis label, the full label of its tooltip
// and data table (an ISO date), and one value per series.
type ChartColumn struct {
	Label  string
	Full   string
	Values []int
}

// Total is the column's sum over the series.
func (c ChartColumn) Total() int {
	n := 0
	for _, v := range c.Values {
		n += v
	}
	return n
}

// Chart is a stacked bar chart the server draws as SVG, with the same numbers as a table.
type Chart struct {
	ID      string // data-testid prefix
	Title   string
	Unit    [2]string // what a value counts, singular and plural
	Series  []ChartSeries
	Columns []ChartColumn
}

// Total is the sum over all columns.
func (c Chart) Total() int {
	n := 0
	for _, col := range c.Columns {
		n += col.Total()
	}
	return n
}

// caption is the title with the chart's total.
func (c Chart) caption() string {
	return c.Title + " (UTC): " + plural(c.Total(), c.Unit[0], c.Unit[1]) + " in all."
}

// The chart's drawing box, in SVG user units; it scales to the width of the page.
const (
	chartW, chartH         = 960, 220
	chartLeft, chartBottom = 36, 24
	chartTop               = 18
)

// chartBar is one drawn rectangle (a series' share of a column).
type chartBar struct {
	X, Y, W, H string
	Series     int
	Title      string
}

// chartLabel is one text drawn in the chart.
type chartLabel struct {
	X, Y, Text string
}

// max is the largest column total, at least 1 so that an empty chart draws.
func (c Chart) max() int {
	m := 1
	for _, col := range c.Columns {
		m = max(m, col.Total())
	}
	return m
}

func (c Chart) colWidth() float64 {
	return float64(chartW-chartLeft) / float64(max(len(c.Columns), 1))
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// bars are the rectangles of every non-zero value, stacked bottom-up in series order.
func (c Chart) bars() []chartBar {
	var out []chartBar
	scale := float64(chartH-chartBottom-chartTop) / float64(c.max())
	w := c.colWidth()
	for i, col := range c.Columns {
		y := float64(chartH - chartBottom)
		for s, v := range col.Values {
			if v == 0 {
				continue
			}
			h := float64(v) * scale
			y -= h
			out = append(out, chartBar{X: num(chartLeft + float64(i)*w + w*0.15), Y: num(y), W: num(w * 0.7), H: num(h), Series: s,
				Title: col.Full + " · " + c.Series[s].Name + ": " + strconv.Itoa(v)})
		}
	}
	return out
}

// totals are the column totals written above their columns (zero columns stay blank).
func (c Chart) totals() []chartLabel {
	var out []chartLabel
	scale := float64(chartH-chartBottom-chartTop) / float64(c.max())
	w := c.colWidth()
	for i, col := range c.Columns {
		if t := col.Total(); t > 0 {
			out = append(out, chartLabel{X: num(chartLeft + float64(i)*w + w/2), Y: num(float64(chartH-chartBottom) - float64(t)*scale - 4), Text: strconv.Itoa(t)})
		}
	}
	return out
}

// ticks are the axis labels under the columns, every step-th so that they do not overlap.
func (c Chart) ticks() []chartLabel {
	step := max(1, (len(c.Columns)+14)/15)
	w := c.colWidth()
	var out []chartLabel
	for i, col := range c.Columns {
		if i%step == 0 {
			out = append(out, chartLabel{X: num(chartLeft + float64(i)*w + w/2), Y: strconv.Itoa(chartH - 6), Text: col.Label})
		}
	}
	return out
}

// DayColumns are n columns of days days each (1: a day, 7: a week) from the UTC day of from
// on, labelled MM-DD, each series' value summed from its per-day counts.
func DayColumns(from time.Time, n, days int, series ...map[time.Time]int64) []ChartColumn {
	out := make([]ChartColumn, n)
	start := from.UTC().Truncate(24 * time.Hour)
	for i := range out {
		first := start.AddDate(0, 0, i*days)
		out[i] = ChartColumn{Label: first.Format("01-02"), Full: first.Format(time.DateOnly), Values: make([]int, len(series))}
		if days > 1 {
			out[i].Full = "week from " + out[i].Full
		}
		for s, counts := range series {
			for d := range days {
				out[i].Values[s] += int(counts[first.AddDate(0, 0, d)])
			}
		}
	}
	return out
}
