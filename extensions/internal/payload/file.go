package payload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile opens a payload file for reading if it is a regular file (after symlinks): a
// FIFO would block a run (or its validation) forever and a device like /dev/zero never ends.
// The open does not block on a FIFO; the caller closes the file.
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("payload file %s: %w", path, err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		_ = f.Close()
		return nil, fmt.Errorf("payload file %s: %w", path, err)
	case !st.Mode().IsRegular():
		_ = f.Close()
		return nil, fmt.Errorf("payload file %s is not a regular file (a folder, device or pipe)", path)
	}
	return f, nil
}

// readFile reads at most size bytes of a payload file: a body of size bytes needs no more
// (one byte at least, which tells an empty file from a 0-byte body).
func readFile(path string, size int) ([]byte, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max(size, 1))))
	if err != nil {
		return nil, fmt.Errorf("payload file %s: %w", path, err)
	}
	return b, nil
}
