// Command k6 is the custom k6 binary of mqbench: stock k6 plus the mqbench extension, the
// same program xk6 would generate, with every version locked in this module's go.mod.
package main

import (
	k6cmd "go.k6.io/k6/v2/cmd"

	_ "github.com/mqbench/xk6-mqbench" // k6/x/mqbench and `k6 x mqbench`
)

func main() { k6cmd.Execute() }
