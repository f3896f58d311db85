// Package aggregate is the "mqbench-influxdb" k6 output: what k6's built-in InfluxDB output
// sends, aggregated per second before it leaves the process.
//
// k6's built-in output (--out influxdb) writes one InfluxDB point per sample: at 20,000 msg/s
// that is ~58,000 points/s (two latencies per message plus nine samples per iteration), and on
// a 2-core machine the encoding and writing steal enough CPU from the load generator to move
// the very latencies being measured (see docs/dashboards.md for the figures). This
// output sees exactly the same samples (k6 hands every sample to every output; thresholds are
// evaluated inside k6 from the full stream, and summary.json keeps the full per-message HDR
// distribution either way) and writes, per metric, tag set and one-second window:
//
//   - counter: one point, value = sum of the window        (sum("value") per bucket: as raw)
//   - gauge:   one point, value = maximum of the window     (max("value") per bucket: as raw)
//   - rate:    one point, value = fraction of non-zero samples, plus field n = sample count
//   - trend:   one point per statistic, tagged stat=count|min|mean|max|p50|p90|p95|p99|p99.9|p99.99,
//     value = that statistic over the window's samples (exact: the samples are sorted, and
//     percentiles use InfluxQL's nearest-rank definition, so with one-second buckets a dashboard
//     gets the same number it would compute from raw points).
//
// Since mqbench sends k6 per-second aggregates by default (samples: aggregated), trend samples
// usually arrive with a stat tag already; those are written as they are, so this output and
// k6's built-in one then write the same points. It still aggregates raw samples (samples: raw).
//
// Points raw samples never carry the stat tag, so one InfluxQL query serves both outputs:
//
//	SELECT percentile("value", 99) FROM "mq_e2e_latency"
//	WHERE ("stat" = 'p99' OR "stat" = '') AND $timeFilter GROUP BY time($__interval)
//
// (a missing tag compares equal to the empty string). The volume no longer depends on the
// message rate: a handful of series × ~10 points per second.
//
// Configuration follows the built-in output, so switching is a matter of the output name:
// --out mqbench-influxdb=http://[user:pass@]host:8086/db?pushInterval=1s&… and the same
// K6_INFLUXDB_* environment variables (ADDR, DB, USERNAME, PASSWORD, INSECURE, RETENTION,
// PUSH_INTERVAL, TAGS_AS_FIELDS); the tags listed in TAGS_AS_FIELDS (default vu, iter, url) are
// dropped, since a per-second aggregate has no single value for them. Writes use the InfluxDB
// 1.x HTTP API (/write, /query), which InfluxDB 2.x and 3.x also serve for compatibility.
//
// The package registers nothing itself: the module root does (register_output.go, with Name
// and New), which keeps every registration of the extension in one place.
package aggregate
