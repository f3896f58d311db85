package bench

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// NATS: NATS core, 1 KB messages, mqbench (bin/k6) beside natsfloor (the same open-model load
// on plain nats.go), same broker, same session, interleaved so both see the same machine noise:
//  1. end-to-end p50 / p99 at 1,000 msg/s
//  2. the highest rate held: nothing lost, everything received, never more than LateMax late,
//     the same for both (mqbench: no dropped iteration either, with a VU pool for LateMax of
//     iterations, the lateness natsfloor is allowed; k6's default pool covers 50 ms), on a
//     ladder climbed until both failed a rung: each one's ceiling is its last rung held (the
//     list runs to 10,000,000 msg/s only so that it is finite)
//  3. CPU per message (generator process, user + system) at the highest rate both hold
//  4. the pacing section (schedule lag and what precise pacing costs)
//
// BENCH_RATES and BENCH_DURATION (60s: a rate is held only over a sustained window) override
// the search.
func NATS(e *Env) error {
	duration, err := e.Seconds("BENCH_DURATION", "60s")
	if err != nil {
		return err
	}
	rates, err := e.Ints("BENCH_RATES", natsRates())
	if err != nil {
		return err
	}
	if err := e.BrokerUp("nats"); err != nil {
		return err
	}
	defer func() { _ = e.BrokerDown("nats") }() // the later sections do not share the machine with it
	floor, err := e.natsfloor()
	if err != nil {
		return err
	}
	e.Printf("== NATS core, 1 KB: mqbench (k6) vs plain nats.go, nats-server on 127.0.0.1, %d cores\n", Cores())

	// 1. latency at 1,000 msg/s
	k, err := e.FixedRate("nats-latency-1000", natsCore, 1000, 10*time.Second, "e2e_p50_us", "e2e_p99_us")
	if err != nil {
		return err
	}
	f, err := floor.fields(1000, 1, 10*time.Second, "precise", "e2e_p50_us", "e2e_p99_us")
	if err != nil {
		return err
	}

	// 2. the ladder, one rate at a time for both (batch: rate / 2000, to keep k6 at <= 2,000
	// iterations/s; the same batch for natsfloor)
	e.Printf("\n%-10s %-6s %-44s %s\n", "rate", "batch", "mqbench: sent/s recv/s dropped lost late-max", "nats.go: sent/s recv/s late-max")
	rung, err := Step("nats-rate", natsCore, "1KB", duration)
	if err != nil {
		return err
	}
	rung.LateVUs = true
	mq := &ladder.Mqbench{Step: rung, K6: e.K6, Dir: e.Dir, Judge: []string{"on-time"}, Columns: []string{"sent/s", "recv/s", "dropped", "lost", "late-max"}}
	best, err := e.Ladder(rates, 2000, []ladder.Probe{mq, floorProbe{floor, duration}}, "%-10s %-6s %-44s %s")
	if err != nil {
		return err
	}
	kBest, fBest := best[0], best[1]

	// 3. CPU per message at the highest rate both held (the same load for both)
	common := min(kBest.Rate, fBest.Rate)
	var kc, fc float64
	if common > 0 {
		batch := ladder.Batch(common, 2000)
		cpu, err := Step("nats-cpu-"+strconv.Itoa(common), natsCore, "1KB", duration)
		if err != nil {
			return err
		}
		ran, err := e.Run(cpu.Named(cpu.Name, common, batch))
		if err != nil {
			return err
		}
		v, err := Figures(&ran.Summary, "cpu_per_message_us")
		if err != nil {
			return err
		}
		w, err := floor.fields(common, batch, duration, "precise", "cpu_per_message_us")
		if err != nil {
			return err
		}
		kc, fc = v[0], w[0]
	}

	top := rates[len(rates)-1]
	e.Printf("\n%-44s %16s %16s %8s\n", "", "mqbench (k6)", "plain nats.go", "ratio")
	e.Printf("%-44s %14.1fus %14.1fus %7sx\n", "e2e p50 at 1,000 msg/s", k[0], f[0], Ratio(k[0], f[0]))
	e.Printf("%-44s %14.1fus %14.1fus %7sx\n", "e2e p99 at 1,000 msg/s", k[1], f[1], Ratio(k[1], f[1]))
	ka, fa := Ceiling(kBest.Rate, top), Ceiling(fBest.Rate, top)
	e.Printf("%-44s %16s %16s %8s\n", "highest rate held, msg/s (batch)", ka+" ("+batchLabel(kBest)+")", fa, Ratio(float64(kBest.Rate), float64(fBest.Rate))+"x")
	if common > 0 {
		e.Printf("%-44s %14.2fus %14.2fus %7sx\n", fmt.Sprintf("CPU per message at %d msg/s", common), kc, fc, Ratio(kc, fc))
	}
	e.Printf("(k6 logs and summaries: %s)\n", e.Dir)
	if err := e.Headline("nats", fmt.Sprintf("highest rate held over %s, msg/s (natsfloor, plain nats.go)", Secs(duration)), ka, fa+" natsfloor",
		Ratio(float64(kBest.Rate), float64(fBest.Rate))+"x"); err != nil {
		return err
	}
	// 4. pacing: schedule lag and its CPU, both tools paced the same way
	return Pacing(e)
}

// natsRates is the default ladder: 40,000 to 350,000 in uneven steps, 400,000 to 1,000,000 by
// 100,000, then 1.25 times the last (rounded down to 50,000) up to 10,000,000.
func natsRates() []int {
	rates := []int{40000, 60000, 80000, 100000, 120000, 150000, 200000, 225000, 250000, 275000, 300000, 350000}
	for r := 400000; r <= 1000000; r += 100000 {
		rates = append(rates, r)
	}
	for rates[len(rates)-1] < 10000000 {
		rates = append(rates, rates[len(rates)-1]*125/100/50000*50000)
	}
	return rates
}

// floorProbe is natsfloor as the ladder's peer: held when everything sent was received and
// the schedule was never LateMax behind.
type floorProbe struct {
	floor    natsFloor
	duration time.Duration
}

func (p floorProbe) Rules() int { return 1 }

func (p floorProbe) Measure(rate, batch int, _ []bool) ([]bool, string, error) {
	v, err := p.floor.fields(rate, batch, p.duration, "precise", "sender_rate", "receiver_rate", "schedule_lag_max_us", "sent", "received")
	if err != nil {
		return nil, "", err
	}
	held := v[4] == v[3] && v[2] < float64(LateMax.Microseconds())
	return []bool{held}, fmt.Sprintf("%.0f %.0f %.1fms", v[0], v[1], v[2]/1e3), nil
}

var _ ladder.Probe = floorProbe{}
