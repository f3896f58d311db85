package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// Results folders, baselines and shards may come from strangers (a pull request): a path
// named inside summary.json or shard.json is read only if it stays inside its run's folder,
// and no file read from one may be large enough to exhaust memory.
const (
	// MaxSummaryBytes bounds summary.json and shard.json (a day-long run of several cells,
	// its per-second timeline and shared-destination ledgers, stays well below).
	MaxSummaryBytes = 64 << 20
	// MaxHistogramBytes bounds one .hgrm or .hdr file (a full 1 ns .. 1 h histogram at 3
	// digits is under 1 MiB in either form).
	MaxHistogramBytes = 64 << 20
	// maxRelLen bounds a relative path named in a results file.
	maxRelLen = 512
)

// Why ReadInside refused a file. They never quote the path they were given: it came from an
// untrusted file, and its caller names the field instead.
var (
	ErrNotInside = errors.New("not a relative path inside the run's folder (no '..', no absolute path)")
	ErrSymlink   = errors.New("a symbolic link (refused: a results folder's files must be its own)")
	ErrNotFile   = errors.New("not a regular file")
	ErrTooLarge  = errors.New("larger than the limit")
	ErrChanged   = errors.New("changed while being read")
)

// LocalPath reports whether rel is a slash-separated path inside a folder: not empty, not
// absolute, no empty, "." or ".." component, no backslash or NUL.
func LocalPath(rel string) bool {
	if rel == "" || len(rel) > maxRelLen || strings.ContainsAny(rel, "\\\x00:") || strings.HasPrefix(rel, "/") {
		return false
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

// ReadInside reads the regular file rel inside dir, at most limit bytes: every component is
// checked with Lstat (no symbolic link, folders then a regular file), the file is opened
// through an os.Root (which cannot leave dir even if the folder changes meanwhile) and read
// through a LimitReader (a size that lies cannot exhaust memory). A missing file gives an
// error that errors.Is fs.ErrNotExist.
func ReadInside(dir, rel string, limit int64) ([]byte, error) {
	f, err := OpenInside(dir, rel, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errors.New("read failed")
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w of %d MiB", ErrTooLarge, limit>>20)
	}
	return b, nil
}

// OpenInside opens rel inside dir as ReadInside does; the caller reads through
// io.LimitReader(f, limit+1) (the file may grow after the check).
func OpenInside(dir, rel string, limit int64) (*os.File, error) {
	if !LocalPath(rel) {
		return nil, ErrNotInside
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("folder cannot be opened: %w", unwrapPath(err))
	}
	defer root.Close()
	parts := strings.Split(rel, "/")
	var last fs.FileInfo
	for i := range parts {
		fi, err := root.Lstat(strings.Join(parts[:i+1], "/"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fs.ErrNotExist
		case err != nil:
			return nil, unwrapPath(err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, ErrSymlink
		case i < len(parts)-1 && !fi.IsDir():
			return nil, fs.ErrNotExist
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return nil, ErrNotFile
		case fi.Size() > limit:
			return nil, fmt.Errorf("%w of %d MiB", ErrTooLarge, limit>>20)
		}
		last = fi
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, unwrapPath(err)
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, last) {
		f.Close()
		return nil, ErrChanged
	}
	return f, nil
}

// unwrapPath drops the path an *fs.PathError carries (it would repeat an untrusted name).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// JSONError says where a results file's JSON went wrong without quoting it: the byte offset,
// and the field when its path is a plain one.
func JSONError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte offset %d", se.Offset)
	case errors.As(err, &te):
		field := ""
		if plainName.MatchString(te.Field) {
			field = " (field " + te.Field + ")"
		}
		what, _, _ := strings.Cut(te.Value, " ") // "number 1e999": the literal stays out
		return fmt.Errorf("a JSON %s where a %s belongs at byte offset %d%s", what, te.Type, te.Offset, field)
	}
	return errors.New("not valid JSON")
}

// plainName is a name safe to repeat from an untrusted file: short, no control character,
// no quote, nothing a terminal or a log would interpret.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_.\-/\[\]]{1,64}$`)

// ShowName is a name from an untrusted listing or file as an error shows it: itself when
// plain, else quoted (escaped) and cut to 64 bytes.
func ShowName(s string) string {
	if plainName.MatchString(s) {
		return s
	}
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// showRel is " (rel)" for a plain relative path, else nothing: errors name the field.
func showRel(rel string) string {
	if LocalPath(rel) && plainName.MatchString(rel) {
		return " (" + rel + ")"
	}
	return ""
}
