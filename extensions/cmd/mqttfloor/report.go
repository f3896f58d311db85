package main

import "github.com/mqbench/xk6-mqbench/internal/floor"

// result is a run's figures, named as natsfloor's (the bench sections read both alike).
type result struct {
	Protocol string `json:"protocol"`
	QoS      int    `json:"qos"`
	floor.Figures
}

// fields, when set, names the result's fields printed (for scripts) instead of its JSON.
var fields string

func report(r result) error { return floor.Report(r, fields) }
