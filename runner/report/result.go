package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/trigger-test/trigger/analysis"
)

// WriteResult writes the result document as indented JSON, through a
// temporary file and a rename, so a reader never sees half a document. A
// NaN or infinite number is written as null (analysis.Document's
// MarshalJSON), so a document always encodes.
func WriteResult(path string, doc analysis.Document) error {
	return WriteFileAtomic(filepath.Dir(path), filepath.Base(path), func(w io.Writer) error {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// ReadResult reads a result document: a regular file of at most
// MaxResultBytes, opened so that a FIFO or a device cannot block or flood
// the reader. A file that is not one, or holds no document, is an
// *InputError.
func ReadResult(path string) (analysis.Document, error) {
	var doc analysis.Document
	f, err := openInput(path, path, MaxResultBytes)
	if err != nil {
		return doc, fmt.Errorf("result: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(limitReader(f, path, MaxResultBytes))
	if err != nil {
		return doc, fmt.Errorf("result: %w", err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("result: %w", &InputError{File: path, Err: err})
	}
	// `null`, `{}` and other JSON that is no result document decode
	// without error into an empty one: reports drawn from it would say
	// nothing true.
	switch {
	case doc.Kind != "plan" && doc.Kind != "simulate" && doc.Kind != "run":
		return doc, fmt.Errorf("result: %w", &InputError{File: path, Err: fmt.Errorf("not a result document: kind %q, want plan, simulate or run", doc.Kind)})
	case doc.Verdict == "":
		return doc, fmt.Errorf("result: %w", &InputError{File: path, Err: errors.New("not a result document: no verdict")})
	}
	return doc, nil
}
