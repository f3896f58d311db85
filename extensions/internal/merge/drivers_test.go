package merge

// Check parses the scenario a shard carries, which names its broker: the fixtures' broker
// must be registered, as every driver is in the k6 binary.
import _ "github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
