// Package filekind names a file's type for people, in the messages of the
// readers that accept only regular files (scenarios, trigger report).
package filekind

import "io/fs"

// Of names m's type with its article: "a folder", "a named pipe", "a
// character device", "a device", "a socket", "a regular file", else
// "mode " and the mode.
func Of(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
