// Package sqsdrv is mqbench's Amazon SQS driver (aws-sdk-go-v2's service/sqs), for AWS's SQS
// and for SQS-compatible servers (ElasticMQ, which the project's scripts start on
// 127.0.0.1:9424).
//
// Publishers send with SendMessage, or SendMessageBatch (send_batch), and an Ack resolves with
// SQS's answer: publish latency is the request's round trip. Payloads travel base64-encoded
// (SQS bodies are text). Consumers long-poll ReceiveMessage (receivers calls at a time, up to
// receive_batch messages each), hand each message over, then delete it with
// DeleteMessageBatch (after delete_delay). Delivery is at least once: a message not deleted
// within the visibility timeout comes back, and the ledger counts it as a duplicate. A
// consumer's Close deletes every message it delivered and hands back, visible at once, what
// its long polls still bring in, so closing a consumer mid-run duplicates and holds nothing.
// On a FIFO
// queue each message carries a MessageGroupId (per producer by default) and a
// MessageDeduplicationId made from the message's run, cell, producer and sequence, so SQS
// drops a retried send instead of delivering it twice.
//
// Setup creates the queue (named by the destination, or per run with queue_per_run) unless
// it exists; Teardown deletes it when the run created it, unless keep. Credentials come from
// the environment only (creds.go).
package sqsdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// dialTimeout bounds connecting, so an unreachable endpoint is reported quickly.
	dialTimeout = 2 * time.Second
	// callTimeout bounds one management or send request (a long poll gets its wait on top).
	callTimeout = 10 * time.Second
	// closeWait bounds how long Close waits for requests in flight.
	closeWait = 5 * time.Second
	// sendRetries is the SDK's attempts per send (its standard retryer: throttling, 5xx,
	// connection resets). A FIFO queue's deduplication id makes a retry harmless.
	sendRetries = 3
)

// Open reads the url, region and credentials, and asks the endpoint for the queue's URL (an
// answer, even "no such queue", proves it reachable and the credentials accepted).
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`sqs: url "embedded" is only supported by the nats broker; give an sqs:// URL`)
	}
	ep, err := parseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("sqs: %w", err)
	}
	if cfg.Subscriptions > 1 {
		return nil, fmt.Errorf("sqs: %d subscriptions are not supported (an SQS queue hands each message to one consumer)", cfg.Subscriptions)
	}
	// The scenario checked the name (CheckDestination); a bad one from elsewhere is refused at
	// Setup, and the probe asks for a valid name instead.
	name := cfg.Destination
	nameErr := checkQueue(name, o)
	run := notInName.ReplaceAllString(cfg.RunID, "_")
	if run == "" {
		run = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	if len(run) > 64 {
		run = run[:64]
	}
	if o.QueuePerRun {
		name = runQueueName(name, run)
	}
	region := firstSet(o.Region, os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
	if region == "" {
		if ep.url == "" {
			return nil, errors.New("sqs: no region for AWS's SQS: set broker.sqs.region or AWS_REGION")
		}
		region = "us-east-1" // signing only: ElasticMQ accepts any region
	}
	creds, credsFrom, err := envCredentials(ep)
	if err != nil {
		return nil, err
	}
	addr := ep.host
	if addr == "" {
		addr = "AWS SQS in " + region
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
	so := sqs.Options{
		Region:           region,
		Credentials:      creds,
		HTTPClient:       &http.Client{Transport: tr},
		RetryMaxAttempts: sendRetries,
		RetryMode:        aws.RetryModeStandard,
		AppID:            "mqbench",
	}
	if ep.url != "" {
		so.BaseEndpoint = aws.String(ep.url)
	}
	d := &sqsDriver{cfg: cfg, opts: o, name: name, runTag: run, addr: addr, credsFrom: credsFrom, client: sqs.New(so), transport: tr}
	if nameErr != nil {
		d.nameErr, d.name = fmt.Errorf("sqs: %w", nameErr), "mqbench-probe"
	}
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+3*time.Second)
	defer cancel()
	if _, err := d.getURL(pctx); err != nil && !isNoQueue(err) {
		tr.CloseIdleConnections()
		return nil, d.classify("GetQueueUrl", err)
	}
	return d, nil
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

type sqsDriver struct {
	cfg       driver.Config
	opts      *Options
	name      string // the queue's name
	runTag    string // the run id as SQS takes it in a deduplication id
	nameErr   error  // the destination breaks SQS's naming rules: Setup fails with it
	addr      string // the endpoint's host:port, or "AWS SQS in <region>", for messages
	credsFrom string
	client    *sqs.Client
	transport *http.Transport

	mu      sync.Mutex
	url     string // the queue's URL, from Setup
	created bool
}

// noRetry makes one call a single attempt: the probe must report an unreachable endpoint at
// once, and receive loops retry on their own.
func noRetry(o *sqs.Options) { o.RetryMaxAttempts = 1 }

func (d *sqsDriver) getURL(ctx context.Context) (string, error) {
	out, err := d.client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(d.name)}, noRetry)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.QueueUrl), nil
}

// isNoQueue: the queue does not exist (JSON protocol: QueueDoesNotExist; older servers
// answer the query protocol's AWS.SimpleQueueService.NonExistentQueue).
func isNoQueue(err error) bool {
	var nq *types.QueueDoesNotExist
	if errors.As(err, &nq) {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && strings.Contains(ae.ErrorCode(), "NonExistentQueue")
}

// classify turns a transport failure into an *driver.UnreachableError and an SQS error
// answer into a plain error with its code (refused credentials: InvalidClientTokenId,
// SignatureDoesNotMatch, AccessDenied), naming how the credentials were chosen.
func (d *sqsDriver) classify(op string, err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		msg := fmt.Sprintf("sqs: %s at %s: %s: %s", op, d.addr, ae.ErrorCode(), ae.ErrorMessage())
		if c := ae.ErrorCode(); strings.Contains(c, "Token") || strings.Contains(c, "Signature") || strings.Contains(c, "AccessDenied") || strings.Contains(c, "Auth") {
			msg += " (credentials: " + d.credsFrom + ")"
		}
		return errors.New(msg)
	}
	if driver.IsUnreachable(err) {
		return &driver.UnreachableError{Broker: "sqs", Address: d.addr, Err: err}
	}
	return fmt.Errorf("sqs: %s at %s: %w", op, d.addr, err)
}

// Setup finds the queue, or creates it with the options' attributes (visibility timeout,
// long-poll wait, largest message, FIFO) and records that the run created it.
func (d *sqsDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nameErr != nil {
		return d.nameErr
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	u, err := d.getURL(cctx)
	if err == nil {
		d.url = u
		return nil
	}
	if !isNoQueue(err) {
		return d.classify("GetQueueUrl", err)
	}
	attrs := map[string]string{
		string(types.QueueAttributeNameVisibilityTimeout):             strconv.Itoa(*d.opts.VisibilityTimeout),
		string(types.QueueAttributeNameReceiveMessageWaitTimeSeconds): strconv.Itoa(*d.opts.WaitTimeSeconds),
		string(types.QueueAttributeNameMaximumMessageSize):            strconv.Itoa(d.opts.MaxMessageBytes),
	}
	if d.opts.FIFO {
		attrs[string(types.QueueAttributeNameFifoQueue)] = "true"
	}
	out, err := d.client.CreateQueue(cctx, &sqs.CreateQueueInput{QueueName: aws.String(d.name), Attributes: attrs})
	if err != nil {
		return d.classify("CreateQueue "+d.name, err)
	}
	d.url, d.created = aws.ToString(out.QueueUrl), true
	return nil
}

// Teardown deletes the queue if this run created it, unless keep.
func (d *sqsDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.created || d.opts.Keep {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := d.client.DeleteQueue(cctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(d.url)}); err != nil && !isNoQueue(err) {
		return d.classify("DeleteQueue "+d.name, err)
	}
	d.created = false
	return nil
}

// DestinationExists reports whether the queue exists (the conformance suite checks Setup and
// Teardown with it). On AWS a deleted queue may still be listed for up to 60 s.
func (d *sqsDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	_, err = d.getURL(ctx)
	if isNoQueue(err) {
		return false, true, nil
	}
	return err == nil, true, err
}

var _ driver.BrokerStats = (*sqsDriver)(nil)

// BrokerStats reads the queue's approximate counts (one GetQueueAttributes): Backlog is the
// visible messages plus those received and not yet deleted (in flight) plus delayed ones.
// SQS exposes no CPU or memory: both stay Unknown.
func (d *sqsDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	u := d.queueURL()
	if u == "" {
		return st, nil
	}
	out, err := d.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u), AttributeNames: []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	}}, noRetry)
	if err != nil {
		return st, d.classify("GetQueueAttributes", err)
	}
	var n int64
	for _, k := range []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	} {
		v, _ := strconv.ParseInt(out.Attributes[string(k)], 10, 64)
		n += v
	}
	st.Backlog = n
	return st, nil
}

func (d *sqsDriver) queueURL() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.url
}

// Close holds nothing beyond idle HTTP connections.
func (d *sqsDriver) Close() error {
	d.transport.CloseIdleConnections()
	return nil
}

// NewPublisher starts publisher id's senders on the queue Setup found or created.
func (d *sqsDriver) NewPublisher(_ context.Context, id int) (driver.Publisher, error) {
	u := d.queueURL()
	if u == "" {
		return nil, errors.New("sqs: NewPublisher before Setup")
	}
	return newPublisher(d, u, id), nil
}

// NewConsumer opens consumer id; it starts receiving at Start.
func (d *sqsDriver) NewConsumer(_ context.Context, id int) (driver.Consumer, error) {
	u := d.queueURL()
	if u == "" {
		return nil, errors.New("sqs: NewConsumer before Setup")
	}
	return newConsumer(d, u, id), nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("sqs", v) }
