// Pinned build of nsqd (and NSQ's bench tools) used by scripts/brokers (tools module: never imported).
module github.com/mqbench/mqbench/brokers/nsq

go 1.26.0

require github.com/nsqio/nsq v1.3.0

require (
	github.com/BurntSushi/toml v1.3.2 // indirect
	github.com/blang/semver v3.5.1+incompatible // indirect
	github.com/bmizerany/perks v0.0.0-20141205001514-d9a9656a3a4b // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/judwhite/go-svc v1.2.1 // indirect
	github.com/julienschmidt/httprouter v1.3.0 // indirect
	github.com/mreiferson/go-options v1.0.0 // indirect
	github.com/nsqio/go-diskqueue v1.1.0 // indirect
	github.com/nsqio/go-nsq v1.1.0 // indirect
	golang.org/x/sys v0.10.0 // indirect
)

// nsq's own replace line (its go.mod has it; replaces in dependencies are not inherited):
// without it the build fails with "undefined: svc.ErrStop".
replace github.com/judwhite/go-svc => github.com/mreiferson/go-svc v1.2.2-0.20210815184239-7a96e00010f6
