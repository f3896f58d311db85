package itest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A 60 s recording with bursts (300 msg/s, 1,500 in three of its seconds), replayed three
// times as fast on in-process NATS: every row is sent and received, each second's sends are
// the recording's three seconds' within 1%, and each size's messages are exactly the
// recording's. Sequential: it judges a schedule on an otherwise idle machine.
func TestReplayFollowsTheRecording(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 2))
	sizes := []int{64, 512, 4096}
	perSecond, perSize := make([]int, 60), map[int]int{}
	var csv strings.Builder
	csv.WriteString("offset_ms,size,key\n")
	for sec := range 60 {
		n := 300
		if sec == 10 || sec == 30 || sec == 31 {
			n = 1500
		}
		for i := range n {
			size := sizes[rnd.IntN(len(sizes))]
			fmt.Fprintf(&csv, "%.3f,%d,k%d\n", float64(sec)*1000+(float64(i)+0.5)*1000/float64(n), size, rnd.IntN(50))
			perSecond[sec]++
			perSize[size]++
		}
	}
	const yaml = `name: replay
broker: { type: nats, url: embedded }
workload: { destination: itest.replay, producers: 2, consumers: 1, drain: 2s, pacing: precise }
matrix:
  - { name: day, replay: { file: traffic.csv, speed: 3 } }
`
	r := runShape(t, dir, "replay", yaml, map[string]string{"traffic.csv": csv.String()})
	c := r.summary.Cells[0]
	rows := 0
	for _, n := range perSecond {
		rows += n
	}
	if int(c.Sent) != rows || c.Received != c.Sent || c.Ledger.Lost != 0 {
		t.Errorf("sent %d, received %d, lost %d; the recording has %d rows", c.Sent, c.Received, c.Ledger.Lost, rows)
	}
	tl := readTimeline(t, r)
	for _, p := range tl.Points {
		if sec := int(p.T); sec < 20 {
			want := float64(perSecond[3*sec] + perSecond[3*sec+1] + perSecond[3*sec+2])
			if math.Abs(float64(p.Sent)-want) > 0.01*want {
				t.Errorf("second %d: sent %d, the recording's seconds %d to %d %v (more than 1%% apart)", sec, p.Sent, 3*sec, 3*sec+2, want)
			}
		}
	}
	var s struct {
		Cells []struct {
			Replay struct {
				Rows int `json:"rows"`
			} `json:"replay"`
			Sizes []struct {
				SizeBytes int `json:"size_bytes"`
				Sent      int `json:"sent"`
			} `json:"sizes"`
		} `json:"cells"`
	}
	decodeSummary(t, r, &s)
	got := map[int]int{}
	for _, k := range s.Cells[0].Sizes {
		got[k.SizeBytes] = k.Sent
	}
	if s.Cells[0].Replay.Rows != rows || fmt.Sprint(got) != fmt.Sprint(perSize) {
		t.Errorf("summary.json: %d rows, sizes %v; the recording: %d rows, sizes %v", s.Cells[0].Replay.Rows, got, rows, perSize)
	}
}
