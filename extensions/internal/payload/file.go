package payload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Unreadable says why path cannot be a payload file ("" when it can): it must be a regular
// file (after symlinks) that opens for reading. Nothing is read.
func Unreadable(path string) string {
	f, why := open(path)
	if f != nil {
		_ = f.Close()
	}
	return why
}

// open opens a payload file if it is a regular file: a FIFO would block a run (or its
// validation) forever and a device like /dev/zero never ends. The open itself does not
// block on a FIFO (O_NONBLOCK); the mode is judged on what was opened.
func open(path string) (*os.File, string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err.Error()
		}
		return nil, err.Error()
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		_ = f.Close()
		return nil, err.Error()
	case st.IsDir():
		_ = f.Close()
		return nil, "is a directory"
	case !st.Mode().IsRegular():
		_ = f.Close()
		return nil, "is not a regular file (a device or a pipe)"
	}
	return f, ""
}

// readFile reads at most size bytes of a payload file: a body of size bytes needs no more
// (one byte at least, which tells an empty file from a 0-byte body).
func readFile(path string, size int) ([]byte, error) {
	f, why := open(path)
	if why != "" {
		return nil, fmt.Errorf("payload file %s: %s", path, why)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max(size, 1))))
	if err != nil {
		return nil, fmt.Errorf("payload file %s: %w", path, err)
	}
	return b, nil
}

// Inside resolves path's symlinks and says whether it lies in dir (its symlinks resolved
// too). A payload is sent to the broker the scenario names, so a file outside the scenario's
// folder (/proc/self/environ, a CI credentials file) must not be one.
func Inside(path, dir string) (resolved string, inside bool, err error) {
	if resolved, err = filepath.EvalSymlinks(path); err != nil {
		return "", false, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false, err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return "", false, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return "", false, err
	}
	rel, err := filepath.Rel(root, resolved)
	inside = err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return resolved, inside, nil
}
