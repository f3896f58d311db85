package results_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// What WriteData puts on disk, Load reads back: the same summary, and the distributions the
// .hgrm files hold.
func TestWriteLoadRoundTrip(t *testing.T) {
	s := sample()
	hs := results.Hists{}
	for i := range s.Cells {
		c := &s.Cells[i]
		hs[c.ID] = map[string]*hist.Hist{}
		for k, kind := range results.Kinds {
			if c.ID == "c2" && kind == "schedule_lag" {
				continue // not recorded: no files
			}
			h := hist.New()
			for v := int64(1); v <= 20000; v++ {
				h.Record(v * int64(50*(k+1)*(i+1)))
			}
			hs[c.ID][kind] = h
			c.SetStats(kind, h.Snapshot())
		}
	}
	s.Cells[1].ScheduleLag = hist.Stats{P: map[string]float64{}}
	dir := filepath.Join(t.TempDir(), "report-embedded", "20260102T030405Z")
	dists, err := results.WriteData(dir, s, hs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.json", "hgrm/c1.e2e.hgrm", "hdr/c1.e2e.hdr", "hgrm/c2.publish.hgrm", "hdr/c2.e2e_intended.hdr"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hgrm", "c2.schedule_lag.hgrm")); err == nil {
		t.Error("an empty distribution got a file")
	}
	for _, f := range []string{"summary.txt", "junit.xml", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s: written with the data (package report renders it)", f)
		}
	}

	r, err := results.Load(filepath.Dir(dir)) // results/<scenario>: its latest run
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != dir || r.Label != "report-embedded" {
		t.Errorf("Dir %s, Label %s", r.Dir, r.Label)
	}
	if !reflect.DeepEqual(r.Summary, *s) {
		got, _ := json.Marshal(r.Summary)
		want, _ := json.Marshal(s)
		t.Errorf("summary read back differs:\n got %s\nwant %s", got, want)
	}
	for _, c := range r.Cells {
		if c.Hgrm["e2e"] != "hgrm/"+c.ID+".e2e.hgrm" || c.Hdr["e2e"] != "hdr/"+c.ID+".e2e.hdr" {
			t.Errorf("%s: hgrm %v hdr %v", c.ID, c.Hgrm, c.Hdr)
		}
		for _, kind := range results.Kinds {
			st, _ := c.Stats(kind)
			d, ok := r.Dists[c.ID][kind]
			if st.Count == 0 {
				if ok {
					t.Errorf("%s %s: a distribution for no samples", c.ID, kind)
				}
				continue
			}
			if !ok || d.TotalCount != st.Count || math.Abs(d.Max-st.Max) > st.Max*0.001 {
				t.Errorf("%s %s: read back %d samples, max %v; summary %d, %v", c.ID, kind, d.TotalCount, d.Max, st.Count, st.Max)
			}
			for _, p := range []struct {
				key string
				q   float64
			}{{"p50", 0.5}, {"p99", 0.99}, {"p99_9", 0.999}} {
				if v := d.ValueAt(p.q); math.Abs(v-st.P[p.key]) > st.P[p.key]*0.001 {
					t.Errorf("%s %s %s: .hgrm %v, summary %v", c.ID, kind, p.key, v, st.P[p.key])
				}
			}
		}
	}
	if !reflect.DeepEqual(dists, r.Dists) {
		t.Error("the distributions WriteData returned differ from those Load reads back")
	}
}

func TestLoadRejects(t *testing.T) {
	for name, body := range map[string]string{
		"not json":          `{`,
		"not a summary":     `{"foo": 1}`,
		"a newer schema":    `{"schema": 99, "scenario": "s", "cells": []}`,
		"a cell not a cell": `{"scenario": "s", "cells": [1]}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := results.Load(dir); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := results.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no summary.json") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestLoadAllLabels(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/20260101T000000Z", "a/20260102T000000Z", "b/20260101T000000Z"} {
		s := sample()
		s.Scenario = filepath.Dir(d)
		if _, err := results.WriteData(filepath.Join(root, d), s, nil); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := results.LoadAll([]string{filepath.Join(root, "a"), filepath.Join(root, "a", "20260101T000000Z"), filepath.Join(root, "b"), filepath.Join(root, "b")})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range runs {
		labels = append(labels, r.Label)
	}
	if want := []string{"a@20260102T000000Z", "a@20260101T000000Z", "b@20260101T000000Z", "b@20260101T000000Z#2"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}
