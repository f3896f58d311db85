package refgen

// The little the options structs cannot say themselves: which values Validate accepts (its
// switch statements and range checks), which mode a key matters in, defaults that depend on
// another option or on the run, and the types of keys decoded from a raw yaml.Node. Every
// key named here must exist (Build fails otherwise) and reference_test.go checks the values
// and ranges against each driver's Validate, so a change there fails a test instead of
// leaving this table wrong.

// note completes one option row.
type note struct {
	typ      string   // the type as written, for keys decoded from a yaml.Node
	def      string   // the default in words, when it is not a fixed value
	values   []string // an enumeration Validate enforces
	min, max string   // a range Validate enforces, as YAML values
	rule     string   // a constraint in words
	modes    []string // the modes the key has an effect in (nil: every mode)
}

// brokerNotes completes one broker's reference.
type brokerNotes struct {
	url         string // the forms broker.url takes
	urlExamples []string
	destination string
	modeKey     string
	example     string // a shipped scenario (repository-relative) shown in full
	start       string // what scripts/brokers/start.sh starts for the example (default: the driver's name)
	keys        map[string]note
}

var notes = map[string]brokerNotes{
	"amqp10": {
		url:         "amqp://[user:password@]host:port (amqps:// for TLS); one server; without user info SASL ANONYMOUS",
		urlExamples: []string{"amqp://guest:guest@127.0.0.1:5672", "amqps://user:secret@broker.example:5671"},
		destination: "the queue (address rabbitmq-v1: declared by RabbitMQ 3.x on attach) or, with address plain, the link address as it is",
		modeKey:     "settle",
		example:     "scenarios/amqp10-rabbitmq-latency.yaml",
		start:       "rabbitmq",
		keys: map[string]note{
			"address":        {values: []string{"rabbitmq-v1", "rabbitmq-v2", "plain", "activemq"}},
			"settle":         {values: []string{"unsettled", "settled"}},
			"accept":         {values: []string{"manual", "auto"}},
			"routing":        {values: []string{"anycast", "multicast"}, rule: "multicast only with address plain or activemq"},
			"queue_type":     {values: []string{"classic", "quorum"}, rule: "quorum only with address rabbitmq-v1"},
			"credit":         {min: "1", max: "65535"},
			"send_queue":     {min: "0", max: "65536", modes: []string{"unsettled"}, rule: "0: each send writes its transfer"},
			"management_url": {def: "http://<url host>:15672", rule: "http:// or https://, no credentials; used with address rabbitmq-v1 only"},
			"prometheus_url": {def: "http://<url host>:15692", rule: "http:// or https://, no credentials; address rabbitmq-v1 only; broker stats (CPU)"},
			"tls":            {rule: "needs an amqps:// url"},
			"auth":           {def: "plain", values: []string{"plain", "external"}, rule: "external needs tls.cert_file and tls.key_file, and no password"},
			"password_file":  {rule: "not with password_env; the file must exist and not be empty"},
			"hostname":       {def: "the url's host"},
		},
	},
	"kafka": {
		url:         "kafka://host:port, several comma-separated (the scheme is optional); no credentials in the url: use security.sasl",
		urlExamples: []string{"kafka://127.0.0.1:9092", "kafka://k1:9092,kafka://k2:9092", "k1:9092,k2"},
		destination: "the topic (created by the run unless topic.create is false)",
		example:     "scenarios/kafka-safe.yaml",
		keys: map[string]note{
			"acks":                       {typ: "string or integer", values: []string{"all", "-1", "1", "0"}, rule: "-1 means all"},
			"idempotent":                 {def: "true with acks all, else false", rule: "true only with acks all"},
			"linger":                     {min: "0s", max: "1m"},
			"batch_bytes":                {min: "1", max: "1073741824"},
			"compression":                {values: []string{"none", "gzip", "snappy", "lz4", "zstd"}},
			"max_in_flight":              {min: "1", max: "100", rule: "5 while idempotent"},
			"request_timeout":            {min: "100ms", max: "10m"},
			"topic.partitions":           {min: "1", max: "100000"},
			"topic.replication_factor":   {min: "1", max: "32767"},
			"topic.configs":              {rule: "Kafka topic configs, values quoted as strings"},
			"consumer.group":             {def: "mqbench-<run id>"},
			"consumer.start":             {values: []string{"latest", "earliest"}},
			"consumer.commit":            {values: []string{"auto", "manual-sync"}},
			"consumer.fetch_max_wait":    {min: "10ms", max: "1m"},
			"consumer.fetch_min_bytes":   {min: "1", max: "1073741824"},
			"security.tls":               {typ: "boolean or block", def: "off"},
			"security.tls.ca_file":       {def: "the system's CA pool"},
			"security.sasl":              {def: "off"},
			"security.sasl.mechanism":    {values: []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}, rule: "required with sasl"},
			"security.sasl.username_env": {rule: "required with sasl"},
			"security.sasl.password_env": {rule: "required with sasl"},
		},
	},
	"mongodb": {
		url:         "mongodb://[user:password@]host[:port][,host…][/db][?options] or mongodb+srv://host (the Go driver's connection string; its options are checked too)",
		urlExamples: []string{"mongodb://127.0.0.1:27117", "mongodb://mq:secret@m1:27017,m2:27017/?replicaSet=rs0", "mongodb+srv://cluster.example.com"},
		destination: "the collection (in database `database`; 1–228 bytes, no $ or NUL, not system.*, not ending in .claims; created at setup, dropped after the run unless keep), beside it `<collection>.claims`",
		modeKey:     "claim",
		example:     "scenarios/mongodb-latency-matrix.yaml",
		start:       "postgres ferretdb",
		keys: map[string]note{
			"database":      {rule: "1–63 bytes without / \\ . \" $ space or NUL (FerretDB: letters, digits, _ and - only)"},
			"write_concern": {typ: "string or integer", values: []string{"1", "majority"}},
			"insert_batch":  {min: "1", max: "100000", rule: "1: InsertOne per message, Send waits for it; more: group commit"},
			"claim":         {values: []string{"batch", "find-one-and-delete"}},
			"claim_batch":   {min: "1", max: "10000", rule: "a round also stops at 16 MiB of documents", modes: []string{"batch"}},
			"order":         {def: "id on MongoDB, natural on FerretDB", values: []string{"id", "natural"}},
			"notify":        {values: []string{"poll", "change-stream"}, rule: "change-stream needs a replica set or sharded cluster (not FerretDB v1); untested here"},
			"poll_interval": {min: "100us", max: "10s"},
			"transaction":   {rule: "claim batch only; needs a replica set or sharded cluster (not FerretDB v1); untested here", modes: []string{"batch"}},
			"tls":           {def: "off (or the url's tls options)", rule: "replaces the url's tls* options, which must then be absent"},
			"password_env":  {rule: "needs a user in the url"},
			"password_file": {rule: "needs a user in the url; not with password_env"},
		},
	},
	"nats": {
		url:         "nats://host:port (also tls://, ws://, wss://; several comma-separated), or embedded: an in-process nats-server with JetStream",
		urlExamples: []string{"nats://127.0.0.1:4222", "embedded", "nats://n1:4222,nats://n2:4222", "tls://n1:4443"},
		destination: "the subject",
		modeKey:     "mode",
		example:     "scenarios/nats-jetstream-safe.yaml",
		keys: map[string]note{
			"mode":         {values: []string{"core", "jetstream"}},
			"stream":       {def: "the destination upper-cased, other characters than A-Z and 0-9 as _", modes: js},
			"storage":      {values: []string{"file", "memory"}, modes: js},
			"replicas":     {min: "1", max: "5", modes: js},
			"fetch_batch":  {min: "1", max: "10000", modes: js},
			"ack_timeout":  {rule: "a positive duration", modes: js},
			"ack":          {values: []string{"explicit", "batch", "none"}, modes: js},
			"ack_wait":     {min: "100ms", max: "1h", rule: "with ack explicit or batch", modes: js},
			"ack_batch":    {def: "100 with ack batch", min: "1", max: "10000", rule: "with ack batch only", modes: js},
			"ack_interval": {def: "10ms with ack batch", min: "1ms", max: "10s", rule: "with ack batch only", modes: js},
			"keep":         {modes: js},
			"monitor_url":  {def: "none (CPU and memory unknown)", rule: "http:// or https://, no credentials; not with url embedded"},
		},
	},
	"mqtt": {
		url:         "mqtt://[user[:password]@]host[:port] (tcp:// alike; port 1883) or mqtts://… (ssl:// alike; TLS, port 8883): one broker; better the password from password_env or password_file than in the url",
		urlExamples: []string{"mqtt://127.0.0.1:1883", "mqtts://bench@broker.example:8883", "mqtt://guest:guest@127.0.0.1:1884"},
		destination: "the topic published to (1–65535 bytes of UTF-8, no NUL, no wildcard + or #, not a $share/… filter); nothing is created or deleted",
		modeKey:     "protocol",
		example:     "scenarios/mqtt-safe.yaml",
		start:       "mosquitto",
		keys: map[string]note{
			"protocol":         {values: []string{"5", "3.1.1"}},
			"qos":              {def: "1", min: "0", max: "2", rule: "0: no acknowledgement; 1: PUBACK; 2: PUBCOMP"},
			"subscribe_qos":    {def: "qos", min: "0", max: "2"},
			"clean_start":      {def: "true"},
			"session_expiry":   {def: "1h with clean_start false and protocol 5, else 0", min: "0s", max: "720h", rule: "whole seconds; protocol 5 only", modes: []string{"5"}},
			"share":            {def: "true", rule: "false for brokers without shared subscriptions (RabbitMQ 3.x, the NATS server): one consumer per subscription"},
			"shared_group":     {def: "mqbench-<run id> (-s<n> for subscription n > 0)", rule: "one non-empty topic level without / + # (at most 1024 bytes); not with share false"},
			"keep_alive":       {min: "1s", max: "65535s", rule: "whole seconds"},
			"receive_maximum":  {min: "0", max: "65535", rule: "0: the protocol's 65535; protocol 5 only", modes: []string{"5"}},
			"max_inflight":     {def: "20 with protocol 3.1.1", min: "1", max: "65535", rule: "protocol 3.1.1 only", modes: []string{"3.1.1"}},
			"message_expiry":   {min: "0s", max: "720h", rule: "whole seconds; 0: none; protocol 5 only", modes: []string{"5"}},
			"client_id_prefix": {rule: "with the run id, role and number at most 65535 bytes (a prefix of at most 65446); 3.1.1 only guarantees ids of 1–23 characters of 0-9 a-z A-Z"},
			"username":         {def: "the url's user"},
			"password_file":    {rule: "not with password_env"},
			"tls":              {def: "off; the system's roots with an mqtts:// url", rule: "needs an mqtts:// url"},
			"connect_timeout":  {min: "100ms", max: "1m"},
		},
	},
	"nsq": {
		url:         "nsq://host[:port] (the scheme is optional; port 4150 when none): one nsqd's TCP port, no credentials; its HTTP API at http_address",
		urlExamples: []string{"nsq://127.0.0.1:4250", "nsq://nsqd.example", "127.0.0.1:4150"},
		destination: "the topic (1–64 characters of . a-z A-Z 0-9 _ -, optionally #ephemeral; created at setup, deleted after the run when the run created it)",
		example:     "scenarios/nsq-latency-matrix.yaml",
		keys: map[string]note{
			"channel":               {def: "mqbench-<run id>", rule: "1–64 characters of . a-z A-Z 0-9 _ -, optionally ending in #ephemeral"},
			"max_in_flight":         {min: "1", max: "2500"},
			"output_buffer_size":    {rule: "-1 (nsqd writes every message at once) or 64..65536"},
			"output_buffer_timeout": {min: "25ms", max: "30s"},
			"http_address":          {def: "<url host>:<url port + 1>", rule: "host:port, http://host:port or https://host:port (https: nsqd's --https-address, with the tls block's CA and client certificate)"},
			"tls":                   {def: "off"},
			"auth_secret_env":       {rule: "use with tls (AUTH sends the secret as it is)"},
			"auth_secret_file":      {rule: "not with auth_secret_env"},
			"publish_batch":         {min: "1", max: "10000", rule: "1: PUB per message; more: MPUB"},
			"publish_linger":        {min: "0s", max: "1s"},
		},
	},
	"postgres": {
		url:         "postgres://user[:password]@host:port/database[?params] (or postgresql://); one server; pgx's parameters (sslmode, …) in the query",
		urlExamples: []string{"postgres://postgres@127.0.0.1:5532/mqbench", "postgresql://mq:secret@db.example:5432/queues?sslmode=require"},
		destination: "the queue table (1–63 characters of a-z A-Z 0-9 _ . -, starting with a letter or _; always quoted, so case-sensitive; created at setup, dropped after the run when the run created it)",
		example:     "scenarios/postgres-latency-matrix.yaml",
		keys: map[string]note{
			"schema":        {rule: "1–63 characters of a-z A-Z 0-9 _ . -, starting with a letter or _; created when missing"},
			"wakeup":        {values: []string{"notify", "poll"}},
			"poll_interval": {def: "1s with wakeup notify, 5ms with wakeup poll", min: "100us", max: "1m"},
			"batch_size":    {min: "1", max: "10000"},
			"sslmode": {def: "verify-full with a tls block, else the url's (none: prefer)", values: []string{"disable", "require", "verify-ca", "verify-full"},
				rule: "replaces the url's ssl* parameters, which must then be absent; verify-ca and verify-full not with tls.insecure_skip_verify"},
			"tls":            {def: "off", rule: "not with sslmode disable"},
			"password_file":  {rule: "not with password_env"},
			"publish_batch":  {min: "1", max: "10000", rule: "1: one INSERT per message; more: multi-row INSERTs"},
			"publish_linger": {min: "0s", max: "1s"},
		},
	},
	"pulsar": {
		url:         "pulsar://host[:port] (port 6650 when none) or pulsar+ssl://host[:port] (TLS, port 6651): one broker's binary protocol port, no credentials (token_env, token_file); its admin REST API at admin_url",
		urlExamples: []string{"pulsar://127.0.0.1:6750", "pulsar://pulsar.example", "pulsar+ssl://pulsar.example:6651"},
		destination: "the topic: name (tenant public, namespace default) or tenant/namespace/name, of . a-z A-Z 0-9 _ - = :; the domain comes from persistent; created at setup, deleted after the run when the run created it",
		example:     "scenarios/pulsar-latency-matrix.yaml",
		keys: map[string]note{
			"persistent":           {rule: "false: non-persistent:// (in memory; Holds no backlog, promises no delivery)"},
			"partitions":           {min: "0", max: "10000", rule: "0: a non-partitioned topic"},
			"subscription":         {def: "mqbench-<run id>", rule: "a-z A-Z 0-9 _ - = : .; -<n> appended per subscription with workload.subscriptions"},
			"subscription_type":    {values: []string{"shared", "key_shared", "failover", "exclusive"}},
			"batch_delay":          {min: "0s", max: "10s"},
			"batch_max_messages":   {rule: "1 to 100000, and at most a tenth of receiver_queue_size"},
			"batch_max_bytes":      {min: "1024", max: "5242880"},
			"send_timeout":         {min: "100ms", max: "10m"},
			"max_pending_messages": {min: "1", max: "1000000"},
			"receiver_queue_size":  {min: "1", max: "1000000"},
			"ack_group_time":       {min: "1ms", max: "10s"},
			"admin_url":            {def: "http://<url host>:<url port + 1430>; with pulsar+ssl:// https://<url host>:<url port + 1792>", rule: "http:// or https://, no credentials, no path"},
			"tls":                  {rule: "needs a pulsar+ssl:// url"},
			"token_env":            {rule: "not with token_file"},
			"token_file":           {rule: "not with token_env; the file must exist and not be empty"},
		},
	},
	"rabbitmq": {
		url:         "amqp://user:password@host:port/vhost (amqps:// for TLS); one server",
		urlExamples: []string{"amqp://guest:guest@127.0.0.1:5672/", "amqps://user:secret@rabbit.example:5671/bench"},
		destination: "the queue",
		modeKey:     "queue_type",
		example:     "scenarios/rabbitmq-safe.yaml",
		keys: map[string]note{
			"queue_type":     {values: []string{"classic", "quorum", "stream"}},
			"durable":        {rule: "quorum and stream: true only"},
			"mandatory":      {rule: "needs confirms: true"},
			"exchange":       {def: "the default exchange", max: "255 bytes"},
			"exchange_type":  {def: "direct with exchange", values: []string{"direct", "topic", "fanout", "x-consistent-hash"}, rule: "only with exchange"},
			"routing_key":    {def: "the destination", max: "255 bytes", rule: "with the default exchange only the destination"},
			"prefetch":       {min: "1", max: "65535"},
			"auto_ack":       {rule: "not with stream", modes: []string{"classic", "quorum"}},
			"management_url": {def: "http://<url host>:15672", rule: "http:// or https://, no credentials; used by faults naming leader or follower and by broker stats"},
			"prometheus_url": {def: "http://<url host>:15692", rule: "http:// or https://, no credentials; broker stats (CPU)"},
			"tls":            {rule: "needs an amqps:// url"},
			"auth":           {def: "plain", values: []string{"plain", "external"}, rule: "external needs tls.cert_file and tls.key_file"},
		},
	},
	"redis": {
		url:         "redis://[user:password@]host:port[/db] (rediss:// for TLS, unix:///path.sock)",
		urlExamples: []string{"redis://127.0.0.1:6379", "rediss://user:secret@redis.example:6380/0", "unix:///run/redis.sock"},
		destination: "the channel (pubsub) or the stream key (streams)",
		modeKey:     "mode",
		example:     "scenarios/redis-streams-latency.yaml",
		keys: map[string]note{
			"mode":       {values: []string{"pubsub", "streams"}},
			"group":      {def: "mqbench-<run id>", modes: streams},
			"maxlen":     {def: "0: no cap", min: "0", modes: streams},
			"read_count": {min: "1", max: "100000", modes: streams},
			"block":      {min: "1ms", modes: streams},
			"keep":       {modes: streams},
		},
	},
	"rocketmq": {
		url:         "rocketmq://host[:port][,host[:port]…] (the scheme is optional; port 9876 when none): the name servers, no credentials (no ACL)",
		urlExamples: []string{"rocketmq://127.0.0.1:9976", "rocketmq://ns1.example:9876,rocketmq://ns2.example:9876", "127.0.0.1:9876"},
		destination: "the topic (1–127 characters of a-z A-Z 0-9 _ -, not one of the broker's own; created at setup on every master broker, deleted after the run when the run created it)",
		modeKey:     "send",
		example:     "scenarios/rocketmq-latency-matrix.yaml",
		keys: map[string]note{
			"send":            {values: []string{"async", "sync", "oneway"}},
			"max_in_flight":   {min: "1", max: "65535", modes: []string{"async"}},
			"queues":          {min: "1", max: "1024"},
			"group":           {def: "mqbench-<run id>", rule: "1–120 characters of a-z A-Z 0-9 _ -"},
			"pull_batch_size": {min: "1", max: "1024"},
			"publish_batch":   {min: "1", max: "1000", modes: []string{"async"}, rule: "1: one message per send; more: batches of keyless messages"},
			"publish_linger":  {min: "0s", max: "1s", modes: []string{"async"}},
		},
	},
	"sqs": {
		url:         "sqs://host[:port]: an SQS-compatible server over HTTP (ElasticMQ, LocalStack); sqs+https://host[:port] over HTTPS; sqs:// alone: AWS's SQS in the region. No path, query or credentials: those come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) only; without them a loopback endpoint gets dummy ones, anything else is refused (exit 113)",
		urlExamples: []string{"sqs://127.0.0.1:9424", "sqs://", "sqs+https://sqs.eu-west-1.example"},
		destination: "the queue name (1–80 characters of a-z A-Z 0-9 - _; a FIFO queue's ends in .fifo and needs fifo: true); created at setup unless it exists, deleted after the run when the run created it (unless keep)",
		example:     "scenarios/sqs-latency-matrix.yaml",
		start:       "elasticmq",
		keys: map[string]note{
			"region":             {def: "env AWS_REGION or AWS_DEFAULT_REGION", rule: "a region name (a-z 0-9 -); required for sqs://, us-east-1 when unset with an endpoint"},
			"message_group_id":   {def: "mqbench-<producer> (one group per producer connection)", rule: "FIFO only; 1–128 characters of a-z A-Z 0-9 and punctuation"},
			"send_batch":         {min: "1", max: "10"},
			"batch_linger":       {min: "0s", max: "1s"},
			"send_concurrency":   {def: "8; 1 with fifo", min: "1", max: "64", rule: "1 with fifo"},
			"receive_batch":      {min: "1", max: "10"},
			"receivers":          {def: "2; 1 with fifo", min: "1", max: "32"},
			"wait_time_seconds":  {def: "20", min: "0", max: "20"},
			"visibility_timeout": {def: "30", min: "0", max: "43200"},
			"delete_delay":       {min: "0s", max: "1h"},
			"max_message_bytes":  {min: "1024", max: "1048576"},
		},
	},
	"zeromq": {
		url:         "tcp://host:port: no server, the endpoint consumer 0 binds (consumer i binds port + i; producers connect to every consumer)",
		urlExamples: []string{"tcp://127.0.0.1:5560"},
		destination: "the logical channel: the topic frame SUB sockets subscribe to (pub-sub, a prefix match); informational in push-pull",
		modeKey:     "pattern",
		example:     "scenarios/zeromq-latency-matrix.yaml",
		start:       "-", // brokerless: nothing to start
		keys: map[string]note{
			"pattern":      {values: []string{"push-pull", "pub-sub"}},
			"hwm":          {def: "1000", min: "-1", max: "10000000", rule: "-1: no limit", modes: []string{"pub-sub"}},
			"send_timeout": {def: "5s", min: "1ms", max: "1m", modes: []string{"push-pull"}},
		},
	},
}

var (
	js      = []string{"jetstream"}
	streams = []string{"streams"}
)
