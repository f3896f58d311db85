package reproduce

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// The private NATS server of the fsync runs: NATS_SYNC_ALWAYS=1 (an fsync after every write),
// its own ports and state folder, so the shared server on 4222 is never touched.
const (
	privateNATSPort    = "14322"
	privateNATSMonitor = "18322"
)

func (e *Env) privateNATSEnv() []string {
	return []string{"MQBENCH_STATE=" + filepath.Join(e.Dir, "nats-state"), "NATS_PORT=" + privateNATSPort,
		"NATS_MONITOR_PORT=" + privateNATSMonitor, "NATS_SYNC_ALWAYS=1"}
}

// privateNATS starts the private server, with the shared state folder's build of the pinned
// server when there is one (else start.sh builds it), and checks the setting reached it
// (varz): else the fsync figures would be the file store's.
func (e *Env) privateNATS() error {
	main := e.Setting("MQBENCH_STATE", filepath.Join(e.Repo, ".cache", "brokers"))
	own := filepath.Join(e.Dir, "nats-state")
	if err := os.MkdirAll(filepath.Join(own, "bin"), 0o755); err != nil {
		return err
	}
	server := filepath.Join(main, "bin", "nats-server")
	if _, err := os.Stat(filepath.Join(own, "bin", "nats-server")); os.IsNotExist(err) {
		if fi, err := os.Stat(server); err == nil && fi.Mode()&0o111 != 0 {
			_ = os.Remove(filepath.Join(own, "bin", "nats-server")) // a dangling link
			if err := os.Symlink(server, filepath.Join(own, "bin", "nats-server")); err != nil {
				return err
			}
			if b, err := os.ReadFile(server + ".stamp"); err == nil {
				_ = os.WriteFile(filepath.Join(own, "bin", "nats-server.stamp"), b, 0o644)
			}
		}
	}
	if err := e.Script(e.privateNATSEnv(), "brokers/start.sh", "nats"); err != nil {
		return err
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://127.0.0.1:" + privateNATSMonitor + "/varz")
	if err != nil {
		return fmt.Errorf("the private NATS server's varz: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !regexp.MustCompile(`"sync_always": *true`).Match(b) {
		return fmt.Errorf("the private NATS server does not report sync_always")
	}
	return nil
}

func (e *Env) privateNATSDown() { _ = e.Script(e.privateNATSEnv(), "brokers/stop.sh", "nats") }
