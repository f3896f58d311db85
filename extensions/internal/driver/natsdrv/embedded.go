package natsdrv

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a real nats-server (JetStream enabled) running inside this process on a random
// 127.0.0.1 port: url embedded's broker, and the self-check's.
type Embedded struct {
	URL string // nats://127.0.0.1:<port>
	srv *server.Server
	dir string
}

// StartEmbedded starts the server and waits until it accepts connections.
func StartEmbedded() (*Embedded, error) {
	dir, err := os.MkdirTemp("", "mqbench-nats-")
	if err != nil {
		return nil, fmt.Errorf("nats: embedded server store: %w", err)
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: "mqbench-embedded",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		JetStream:  true,
		StoreDir:   dir,
		MaxPayload: embeddedMaxPayload,
		NoLog:      true,
		NoSigs:     true,
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("nats: embedded server: %w", err)
	}
	go srv.Start()
	// The URL only once ready: Start writes the random port it got into the options
	// ClientURL reads (reading it earlier was a data race, and gave port 0).
	e := &Embedded{srv: srv, dir: dir}
	if !srv.ReadyForConnections(10 * time.Second) {
		e.Close()
		return nil, errors.New("nats: embedded server did not become ready within 10s")
	}
	e.URL = srv.ClientURL()
	return e, nil
}

// Close shuts the server down and removes its store.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	os.RemoveAll(e.dir)
}
