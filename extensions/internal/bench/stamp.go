package bench

import (
	"fmt"
	"strings"
)

// Stamp: what `payload.stamp: header` costs beside `body`, per broker: the generator's CPU per
// message (user + system) and e2e p50, 1 KB at a fixed rate every configuration holds, each
// configuration BENCH_STAMP_REPEATS times (3) for BENCH_STAMP_DURATION (20s), body and header
// interleaved so both see the same machine noise; medians with [min-max]. The "native" column
// is the stamp in the body (mqbench's default), the ratio header ÷ body. Starts the brokers it
// needs and stops the ones it started.
func Stamp(e *Env) error {
	repeats, err := e.PositiveInt("BENCH_STAMP_REPEATS", 3)
	if err != nil {
		return err
	}
	duration, err := e.Seconds("BENCH_STAMP_DURATION", "20s")
	if err != nil {
		return err
	}
	brokers := []struct {
		name, block string
		rate, batch int
	}{
		{"nats", natsCore, 20000, 10},
		{"kafka", `{ type: kafka, url: "kafka://127.0.0.1:9092", kafka: { acks: all, linger: 0s } }`, 20000, 10},
		{"rabbitmq", `{ type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5672/", rabbitmq: { queue_type: classic, confirms: true, prefetch: 200 } }`, 5000, 1},
	}
	e.Printf("== stamp in a header vs in the body: 1 KB, one producer and one consumer, median of %d interleaved runs of %s (%d cores); [min-max] shows the noise\n",
		repeats, Secs(duration), Cores())
	e.Printf("%-44s %22s %22s %7s\n", "", "stamp: header", "stamp: body", "ratio")
	var names, hdr, body, ratios []string // the headline's columns, one entry per broker
	for _, b := range brokers {
		if err := e.BrokerUp(b.name); err != nil {
			return err
		}
		// per mode: CPU per message, e2e p50
		runs := map[string][][2]float64{}
		for i := range repeats {
			for _, mode := range []string{"body", "header"} {
				name := fmt.Sprintf("stamp-%s-%s-%d", b.name, mode, i)
				step, err := Step(name, b.block, "1KB", duration)
				if err != nil {
					return err
				}
				spec := step.Named(name, b.rate, b.batch)
				spec.Workload.Payload = map[string]string{"stamp": mode}
				ran, err := e.Run(spec)
				if err != nil {
					return err
				}
				f, err := Figures(&ran.Summary, "cpu_per_message_us", "e2e_p50_us", "lost")
				if err != nil {
					return err
				}
				if f[2] != 0 {
					return fmt.Errorf("%s lost %.0f messages", name, f[2])
				}
				runs[mode] = append(runs[mode], [2]float64{f[0], f[1]})
			}
		}
		for m, metric := range []string{"CPU per message", "e2e p50"} {
			h, hs := medianRange(runs["header"], m)
			d, ds := medianRange(runs["body"], m)
			e.Printf("%-44s %22s %22s %7s\n", fmt.Sprintf("%s, %s at %d msg/s", metric, b.name, b.rate), hs, ds, Ratio(h, d)+"x")
			if m == 0 {
				names, ratios = append(names, b.name), append(ratios, Ratio(h, d))
				hdr, body = append(hdr, fmt.Sprintf("%.2fus", h)), append(body, fmt.Sprintf("%.2fus", d))
			}
		}
		if err := e.BrokerDown(b.name); err != nil {
			return err
		}
	}
	e.Printf("(k6 logs and summaries: %s)\n", e.Dir)
	return e.Headline("stamp", "CPU per message, stamp in a header vs the body ("+strings.Join(names, ", ")+")",
		strings.Join(hdr, ", "), "body: "+strings.Join(body, ", "), strings.Join(ratios, ", ")+"x")
}

// medianRange is the median of field m over runs, and it printed with [min-max] in µs.
func medianRange(runs [][2]float64, m int) (float64, string) {
	vs := make([]float64, len(runs))
	for i, r := range runs {
		vs[i] = r[m]
	}
	med, lo, hi := Spread(vs)
	return med, fmt.Sprintf("%.2fus [%.2f-%.2f]", med, lo, hi)
}
