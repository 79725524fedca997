package usage

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteTimelineCSV writes a timeline as CSV, one row per data point (long
// form): the header group_id,item_id,label,date,value, then the datasets'
// points in the timeline's order. Estimates are left out.
func WriteTimelineCSV(w io.Writer, t Timeline) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group_id", "item_id", "label", "date", "value"})
	labels := legendLabels(t.Legend)
	for _, d := range t.Datasets {
		for _, p := range d.Data {
			cw.Write([]string{d.GroupID, d.ItemID, labels[d.ItemID], p.Date, strconv.FormatInt(p.Value, 10)})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write timeline csv: %w", err)
	}
	return nil
}

// WriteTopCSV writes a top list as CSV: the header
// group_id,item_id,label,value, then one row per item.
func WriteTopCSV(w io.Writer, t Top) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group_id", "item_id", "label", "value"})
	labels := legendLabels(t.Legend)
	for _, d := range t.Datasets {
		for _, it := range d.Data {
			cw.Write([]string{d.GroupID, it.ItemID, labels[it.ItemID], strconv.FormatInt(it.Value, 10)})
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
