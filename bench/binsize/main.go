// Command binsize measures the shipped binary: its size as `make build`
// makes it (stripped, -trimpath -ldflags "-s -w") and unstripped, the
// packages it links, and which modules its code and data come from (the
// symbol sizes of the unstripped build, summed per module), so the cost of
// each large dependency in docs/design.md, "Dependencies", can be checked
// again:
//
//	go run ./bench/binsize
//
// It builds into a temporary directory and prints a table; it sends
// nothing anywhere.
package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "binsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	stripped, full := filepath.Join(dir, "trigger"), filepath.Join(dir, "trigger-full")
	if err := goCmd(nil, "build", "-trimpath", "-ldflags", "-s -w", "-o", stripped, "./cmd/trigger"); err != nil {
		return err
	}
	if err := goCmd(nil, "build", "-o", full, "./cmd/trigger"); err != nil {
		return err
	}
	var deps bytes.Buffer
	if err := goCmd(&deps, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.Module.Path}}{{else}}{{.ImportPath}} std{{end}}", "./cmd/trigger"); err != nil {
		return err
	}
	moduleOf := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(deps.String()), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			moduleOf[f[0]] = f[1]
		}
	}
	perModule, total, err := symbolSizes(full, moduleOf)
	if err != nil {
		return err
	}
	st, err := os.Stat(stripped)
	if err != nil {
		return err
	}
	fu, err := os.Stat(full)
	if err != nil {
		return err
	}
	fmt.Printf("stripped (make build): %.1f MB; unstripped: %.1f MB; %d packages linked\n",
		mb(st.Size()), mb(fu.Size()), len(moduleOf))
	fmt.Printf("symbols' code and data by module (%.1f MB in all; the rest of the file is the runtime's tables and, unstripped, the symbol table and DWARF):\n", mb(total))
	type row struct {
		m string
		n int64
	}
	var rows []row
	for m, n := range perModule {
		rows = append(rows, row{m, n})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].n > rows[j].n })
	for i, r := range rows {
		if i == 20 {
			break
		}
		fmt.Printf("  %6.1f MB  %4.1f %%  %s\n", mb(r.n), 100*float64(r.n)/float64(total), r.m)
	}
	return nil
}

// symbolSizes sums the sizes of the binary's symbols that occupy the file
// (code and data; not zero-filled memory) per module.
func symbolSizes(path string, moduleOf map[string]string) (map[string]int64, int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, 0, err
	}
	per := map[string]int64{}
	var total int64
	for _, sym := range syms {
		i := int(sym.Section)
		if sym.Size == 0 || i <= 0 || i >= len(f.Sections) || f.Sections[i].Type == elf.SHT_NOBITS {
			continue
		}
		n := int64(sym.Size)
		per[module(sym.Name, moduleOf)] += n
		total += n
	}
	return per, total, nil
}

// module is the module a symbol's package belongs to: the longest package
// path the binary links that prefixes the symbol's name.
func module(sym string, moduleOf map[string]string) string {
	sym = strings.TrimPrefix(sym, "type:")
	sym = strings.TrimPrefix(sym, "go:")
	// A symbol is "path/to/pkg.Name..." (the path may contain dots in its
	// last element only before the first slash-free dot).
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return "other"
	}
	pkg := sym[:slash+1+dot]
	if m, ok := moduleOf[pkg]; ok {
		return group(m)
	}
	if strings.Contains(pkg, ".") && strings.Contains(pkg, "/") {
		return group(pkg)
	}
	return "std and runtime"
}

// group names the large families of modules together.
func group(m string) string {
	switch {
	case m == "std":
		return "std and runtime"
	case strings.HasPrefix(m, "github.com/aws/"):
		return "AWS SDK (github.com/aws/...)"
	case strings.HasPrefix(m, "github.com/Azure/"), strings.HasPrefix(m, "github.com/AzureAD/"):
		return "Azure SDK (github.com/Azure/...)"
	case strings.HasPrefix(m, "cloud.google.com/"), strings.HasPrefix(m, "google.golang.org/"), strings.HasPrefix(m, "github.com/googleapis/"):
		return "Google Cloud, gRPC and protobuf (cloud.google.com, google.golang.org/...)"
	case strings.HasPrefix(m, "k8s.io/"), strings.HasPrefix(m, "sigs.k8s.io/"):
		return "Kubernetes client-go and API (k8s.io/...)"
	case strings.HasPrefix(m, "go.opentelemetry.io/"):
		return "OpenTelemetry (go.opentelemetry.io/...)"
	}
	return m
}

func goCmd(out *bytes.Buffer, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	if out != nil {
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }
