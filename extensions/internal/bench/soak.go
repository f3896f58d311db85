package bench

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"time"
)

// natsCore is the NATS sections' broker: nats-server's core on its usual port, or on
// NATS_PORT, the port the broker scripts start it on (so soak-long can run from a second
// clone beside make test).
var natsCore = `{ type: nats, url: "nats://127.0.0.1:` + cmp.Or(os.Getenv("NATS_PORT"), "4222") + `", nats: { mode: core } }`

// Soak: does a run stay valid and bounded for its whole length? NATS core, 1 KB at
// SOAK_RATE (20,000 msg/s, batch 10), once for SOAK_SHORT (1 minute) and once for SOAK_LONG
// (10 minutes), same broker, same session: max RSS of bin/k6, dropped iterations and e2e p99
// of each, and the ratios (aims: RSS(long) <= 1.2 x RSS(short), no dropped iteration,
// p99(long) <= 1.5 x p99(short)).
func Soak(e *Env) error {
	short, err := e.Seconds("SOAK_SHORT", "60s")
	if err != nil {
		return err
	}
	long, err := e.Seconds("SOAK_LONG", "600s")
	if err != nil {
		return err
	}
	rate, err := e.PositiveInt("SOAK_RATE", 20000)
	if err != nil {
		return err
	}
	batch := 1
	if rate > 5000 {
		batch = rate / 2000
	}
	if err := e.BrokerUp("nats"); err != nil {
		return err
	}
	e.Printf("== soak: NATS core, 1 KB at %d msg/s (batch %d), %s vs %s, %d cores\n", rate, batch, Secs(short), Secs(long), Cores())
	type row struct{ rss, dropped, p99, sent, received, lost float64 }
	measure := func(name string, d time.Duration) (row, error) {
		step, err := Step(name, natsCore, "1KB", d)
		if err != nil {
			return row{}, err
		}
		ran, err := e.Run(step.Spec(rate, batch))
		if err != nil {
			return row{}, err
		}
		f, err := Figures(&ran.Summary, "dropped_iterations", "e2e_p99_us", "sent", "received", "lost")
		if err != nil {
			return row{}, err
		}
		return row{ran.MaxRSSMB, f[0], f[1], f[2], f[3], f[4]}, nil
	}
	s, err := measure("soak-short", short)
	if err != nil {
		return err
	}
	l, err := measure("soak-long", long)
	if err != nil {
		return err
	}
	e.Printf("\n%-28s %14s %14s %8s\n", "", Secs(short), Secs(long), "ratio")
	e.Printf("%-28s %12.0fMB %12.0fMB %7sx\n", "max RSS of bin/k6", s.rss, l.rss, Ratio(l.rss, s.rss))
	e.Printf("%-28s %14.0f %14.0f\n", "dropped iterations", s.dropped, l.dropped)
	e.Printf("%-28s %12.1fus %12.1fus %7sx\n", "e2e p99", s.p99, l.p99, Ratio(l.p99, s.p99))
	e.Printf("%-28s %14s %14s\n", "sent / received / lost", counts(s.sent, s.received, s.lost), counts(l.sent, l.received, l.lost))
	if err := e.BrokerDown("nats"); err != nil {
		return err
	}
	e.Printf("(k6 logs and summaries: %s)\n", e.Dir)
	// No native tool: the headline compares mqbench's long run with its short one.
	return e.Headline("soak", fmt.Sprintf("max RSS of bin/k6, %s run ÷ %s run (no native tool)", Secs(long), Secs(short)),
		fmt.Sprintf("%.0f MB", l.rss), fmt.Sprintf("%.0f MB, %s run", s.rss, Secs(short)), Ratio(l.rss, s.rss)+"x")
}

// counts is "a/b/c" of whole counts.
func counts(vs ...float64) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += "/"
		}
		out += strconv.FormatFloat(v, 'f', 0, 64)
	}
	return out
}
