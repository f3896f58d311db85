package nsqdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/nsqio/go-nsq"
)

// probeWait is how long a plain-text probe waits for nsqd to refuse its NOP. NOP has no
// answer when nsqd takes it, so this is paid once per Open without TLS.
const probeWait = 250 * time.Millisecond

// probePlain asks nsqd, over plain TCP, whether it takes commands without TLS. go-nsq's
// Producer cannot ask: an nsqd that requires TLS answers its NOP with an error frame that no
// transaction waits for, and go-nsq v1.1.0's router then panics (popTransaction on an empty
// list), taking the whole process down. A refusal comes back as an error naming nsqd's
// reason; a dial failure as the dial's error; silence means the NOP was taken.
func probePlain(ctx context.Context, addr string) error {
	conn, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(probeWait)); err != nil {
		return err
	}
	if _, err := conn.Write(nsq.MagicV2); err != nil {
		return err
	}
	if _, err := nsq.Nop().WriteTo(conn); err != nil {
		return err
	}
	resp, err := nsq.ReadResponse(conn)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil // no answer: NOP taken
		}
		return fmt.Errorf("nsqd closed the connection after NOP: %w", err)
	}
	if kind, body, err := nsq.UnpackResponse(resp); err == nil && kind == nsq.FrameTypeError {
		return fmt.Errorf("nsqd refused a plain-text client: %s (give a tls block if it requires TLS)", body)
	}
	return nil
}
