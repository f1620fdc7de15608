package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/trigger-test/trigger/analysis"
)

// WriteResult writes the result document as indented JSON, through a
// temporary file and a rename, so a reader never sees half a document. A
// NaN or infinite number is written as null (analysis.Document's
// MarshalJSON), so a document always encodes.
func WriteResult(path string, doc analysis.Document) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".result-*.json")
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("result: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("result: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	return nil
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
	return doc, nil
}
