package pgdrv

import (
	"context"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wireConn is a publisher's connection after pgx opened it (TLS, authentication, the
// server's parameters): the publisher encodes each INSERT's Parse (once per statement), Bind,
// Execute and Sync with pgx's message types into one buffer it keeps, writes them itself and
// reads the answers with pgx's decoder. pgx's own writer encodes a Bind into a buffer it drops
// after every write over 1 KB, so a 100-row INSERT of 1 KB payloads grew a fresh one about 20
// times: a quarter of the generator's CPU at 180,000 rows/s, with the garbage collection it
// caused.
type wireConn struct {
	conn     net.Conn
	pid      uint32 // the server process's (tests)
	fe       *pgproto3.Frontend
	buf      []byte       // the request being written (reused)
	prepared map[int]bool // statements parsed on this connection, by batch length
	broken   bool         // a write or read failed: the protocol's state is unknown
}

// hijack takes the connection over from pgx (which must be idle). pgconn's Hijack is outside
// pgx's compatibility promise: go.mod pins the version this was tested with.
func hijack(ctx context.Context, c *pgx.Conn) (*wireConn, error) {
	pc := c.PgConn()
	if err := pc.SyncConn(ctx); err != nil {
		_ = c.Close(ctx)
		return nil, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		_ = c.Close(ctx)
		return nil, err
	}
	return &wireConn{conn: hc.Conn, pid: hc.PID, fe: hc.Frontend, prepared: map[int]bool{}}, nil
}

// insert runs st with values as its parameters (bytea, binary format) in autocommit and
// waits for the server's answer: nil once the INSERT committed, the server's error as a
// *pgconn.PgError (the connection stays usable), or the network's (broken is set).
func (w *wireConn) insert(st insertStmt, values [][]byte, timeout time.Duration) error {
	n := len(values)
	var err error
	b := w.buf[:0]
	if !w.prepared[n] { // no parameter types: the column's (bytea)
		if b, err = (&pgproto3.Parse{Name: st.name, Query: st.sql}).Encode(b); err != nil {
			return err
		}
	}
	// One format code for every parameter: binary (bytea's is the bytes themselves).
	bind := pgproto3.Bind{PreparedStatement: st.name, ParameterFormatCodes: binaryFormat, Parameters: values}
	if b, err = bind.Encode(b); err != nil {
		return err
	}
	if b, err = (&pgproto3.Execute{}).Encode(b); err != nil {
		return err
	}
	if w.buf, err = (&pgproto3.Sync{}).Encode(b); err != nil { // autocommit ends here
		return err
	}

	if err := w.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return w.fail(err)
	}
	if _, err := w.conn.Write(w.buf); err != nil {
		return w.fail(err)
	}
	var serverErr error
	for {
		msg, err := w.fe.Receive()
		if err != nil {
			if serverErr != nil { // the server said why it ended the connection (e.g. 57P01)
				err = serverErr
			}
			return w.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ParseComplete:
			w.prepared[n] = true
		case *pgproto3.ErrorResponse:
			if serverErr == nil { // the server skips to the Sync after an error: one per request
				serverErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return serverErr
		}
	}
}

// fail marks the connection broken and closes it: after a failed write or read the server
// may still be answering, and the next request would read that answer as its own.
func (w *wireConn) fail(err error) error {
	w.broken = true
	_ = w.conn.Close()
	return err
}

// close says Terminate (so the server logs no broken connection) and closes.
func (w *wireConn) close() {
	if !w.broken {
		if b, err := (&pgproto3.Terminate{}).Encode(w.buf[:0]); err == nil {
			_ = w.conn.SetDeadline(time.Now().Add(dialTimeout))
			_, _ = w.conn.Write(b)
		}
	}
	_ = w.conn.Close()
}

// binaryFormat: one format code for every parameter, binary.
var binaryFormat = []int16{pgproto3.BinaryFormat}
