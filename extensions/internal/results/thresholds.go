package results

// Which thresholds belong where. A summary lists every threshold run-wide and each cell its
// own; a merged or older summary may list one in one place only, so every report asks here.

// AllThresholds is every threshold of the run: s.Thresholds, then any a cell lists that
// s.Thresholds lacks, so no report can leave one out.
func (s *Summary) AllThresholds() []Threshold {
	out := append([]Threshold(nil), s.Thresholds...)
	seen := map[string]bool{}
	for _, t := range s.Thresholds {
		seen[thresholdKey(t)] = true
	}
	for i := range s.Cells {
		for _, t := range s.Cells[i].Thresholds {
			if k := thresholdKey(t); !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// CellThresholds is a cell's thresholds: its own list, then any of s.Thresholds that names
// the cell and the list lacks.
func (s *Summary) CellThresholds(c *Cell) []Threshold {
	out := append([]Threshold(nil), c.Thresholds...)
	seen := map[string]bool{}
	for _, t := range c.Thresholds {
		seen[thresholdKey(t)] = true
	}
	for _, t := range s.Thresholds {
		if k := thresholdKey(t); t.Cell == c.ID && !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// RunThresholds are the thresholds of no cell: cell "" (or one naming no cell of the run).
func (s *Summary) RunThresholds() []Threshold {
	var out []Threshold
	for _, t := range s.Thresholds {
		if t.Cell == "" || s.Cell(t.Cell) == nil {
			out = append(out, t)
		}
	}
	return out
}

func thresholdKey(t Threshold) string { return t.Metric + "\x00" + t.Expression }
