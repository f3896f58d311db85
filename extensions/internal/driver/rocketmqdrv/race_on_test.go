//go:build race

package rocketmqdrv

const raceDetector = true
