package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cliMemoryFraction is the share of the memory the process may use that a
// render verb drawing one image lets its heap grow to before it collects
// garbage: the rest is room for what the heap does not count (stacks, the
// runtime's own memory, the encoded output) and for what the heap outgrows
// between two collections.
const cliMemoryFraction = 0.75

// cliMemoryFallback is the limit when the memory available is not known
// (no cgroup limit and no /proc/meminfo: not Linux).
const cliMemoryFallback = 1 << 30

// cliMemoryLimit is the soft memory limit of a render verb: a fraction of
// what the process may use (see memoryBudget) under root ("/" but in
// tests), or cliMemoryFallback when that is not known.
func cliMemoryLimit(root string) int64 {
	budget := memoryBudget(root)
	if budget <= 0 {
		return cliMemoryFallback
	}
	return int64(float64(budget) * cliMemoryFraction)
}

// unlimited is where cgroup v1 writes "no limit" (the largest multiple of
// the page size); any limit as large is none.
const unlimited = 1 << 60

// memoryBudget returns the memory the process may use, in bytes: the
// smallest of the memory limits of its cgroup and the cgroup's parents
// (cgroup v2 memory.max, v1 memory.limit_in_bytes) and of the memory the
// system has available (MemAvailable in /proc/meminfo); 0 when none is
// known.
func memoryBudget(root string) int64 {
	var budget int64
	take := func(v int64) {
		if v > 0 && v < unlimited && (budget == 0 || v < budget) {
			budget = v
		}
	}
	for _, file := range cgroupLimitFiles(root) {
		if v, ok := readLimit(file); ok {
			take(v)
		}
	}
	take(memAvailable(filepath.Join(root, "proc", "meminfo")))
	return budget
}

// cgroupLimitFiles lists the memory limit files of the process's cgroups
// (from /proc/self/cgroup), from the cgroup up to the hierarchy's root.
func cgroupLimitFiles(root string) []string {
	data, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return nil
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		var mount, name string
		switch {
		case parts[0] == "0" && parts[1] == "":
			mount, name = filepath.Join(root, "sys", "fs", "cgroup"), "memory.max"
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			mount, name = filepath.Join(root, "sys", "fs", "cgroup", "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		// Inside a container the path may name the cgroup as the host
		// sees it, above the mount: the files that exist are read.
		for dir := filepath.Clean(parts[2]); ; dir = filepath.Dir(dir) {
			files = append(files, filepath.Join(mount, dir, name))
			if dir == "/" {
				break
			}
		}
	}
	return files
}

// readLimit reads a cgroup memory limit: bytes, or "max" (none).
func readLimit(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	if s == "max" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// memAvailable reads MemAvailable from a /proc/meminfo file, in bytes (0
// when absent).
func memAvailable(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || (len(f) > 1 && f[1] != "kB") {
			return 0
		}
		return kb << 10
	}
	return 0
}
