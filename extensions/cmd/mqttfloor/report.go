package main

import "github.com/mqbench/xk6-mqbench/internal/floor"

// result is a run's figures, named as natsfloor's (the bench sections read both alike).
type result struct {
	Protocol     string  `json:"protocol"`
	QoS          int     `json:"qos"`
	Rate         int     `json:"rate"`
	Batch        int     `json:"batch"`
	Size         int     `json:"size"`
	Sent         int64   `json:"sent"`
	Received     int64   `json:"received"`
	SenderRate   float64 `json:"sender_rate"`
	ReceiverRate float64 `json:"receiver_rate"`
	P50us        float64 `json:"e2e_p50_us"`
	P99us        float64 `json:"e2e_p99_us"`
	MaxUs        float64 `json:"e2e_max_us"`
	IntendedP50  float64 `json:"e2e_intended_p50_us"`
	IntendedP99  float64 `json:"e2e_intended_p99_us"`
	LagP50us     float64 `json:"schedule_lag_p50_us"`
	LagP99us     float64 `json:"schedule_lag_p99_us"`
	LateMaxUs    float64 `json:"schedule_lag_max_us"`
	Pacing       string  `json:"pacing"`
	CPUPerMsgUs  float64 `json:"cpu_per_message_us"`
}

// fields, when set, names the result's fields printed (for scripts) instead of its JSON.
var fields string

func report(r result) error { return floor.Report(r, fields) }
