package cmd

// The module root registers every broker driver; the commands' tests parse scenarios of all
// of them, so they register them too.
import _ "github.com/mqbench/xk6-mqbench/internal/driver/all"
