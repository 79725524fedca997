package usage

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTimelineCSV writes a timeline as CSV, one row per data point (long
// form): the header group_id,item_id,label,date,value, then the datasets'
// points in the timeline's order. Estimates are left out. Text cells are
// escaped against formula injection (see cell).
func WriteTimelineCSV(w io.Writer, t Timeline) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group_id", "item_id", "label", "date", "value"})
	labels := legendLabels(t.Legend)
	for _, d := range t.Datasets {
		for _, p := range d.Data {
			cw.Write([]string{cell(d.GroupID), cell(d.ItemID), cell(labels[d.ItemID]), p.Date, strconv.FormatInt(p.Value, 10)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write timeline csv: %w", err)
	}
	return nil
}

// WriteTopCSV writes a top list as CSV: the header
// group_id,item_id,label,value, then one row per item. Text cells are
// escaped as in WriteTimelineCSV.
func WriteTopCSV(w io.Writer, t Top) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group_id", "item_id", "label", "value"})
	labels := legendLabels(t.Legend)
	for _, d := range t.Datasets {
		for _, it := range d.Data {
			cw.Write([]string{cell(d.GroupID), cell(it.ItemID), cell(labels[it.ItemID]), strconv.FormatInt(it.Value, 10)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write top csv: %w", err)
	}
	return nil
}

func legendLabels(l []LegendItem) map[string]string {
	m := make(map[string]string, len(l))
	for _, li := range l {
		m[li.ItemID] = li.Label
	}
	return m
}

// cell escapes a text cell against formula injection: a spreadsheet opening
// the file would take a cell starting with =, +, -, @ (or a tab or carriage
// return, which some strip before looking) as a formula, and a key's name
// is anyone's text. Such a cell gets a leading apostrophe, which
// spreadsheets show as text and do not display.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
