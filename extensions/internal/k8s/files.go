package k8s

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/payload"
)

// ConfigMapFile reads a file for the ConfigMap: a regular file inside the scenario's folder
// once symlinks are resolved (a link to /proc/self/environ would ship the environment, a
// link out of the folder a file nobody reviewed), and no more than a ConfigMap holds.
// Errors name field, never the file's target.
func ConfigMapFile(field, file, dir string) ([]byte, error) {
	resolved, inside, err := payload.Inside(file, dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %v", field, pathless(err))
	case !inside:
		return nil, fmt.Errorf("%s: on Kubernetes the file must be in the scenario's folder, and it links out of it", field)
	}
	if why := payload.Unreadable(resolved); why != "" {
		return nil, fmt.Errorf("%s: %s", field, why)
	}
	f, err := os.Open(resolved)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", field, pathless(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigMapBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", field, err)
	}
	return b, nil
}

// pathless keeps the reason of a *PathError: its path may be a link's target.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
