package main

// The one-version rewrite of bench/stepped-migration.bench.ts on IAVL: every record of a records store rewritten in
// one version, as an SDK upgrade handler rewrites them in the block at the plan's height. It gives the bench's "one
// handler" figures (the block's time, the process's peak RSS) an anchor measured on the store every Cosmos chain
// runs.
//
// The records are the bench chain's own (bench/stepped-migration/records-chain.ts): key 0x01 ‖ uint32 index (big
// endian), value "record <i>" padded with '.' to 32 bytes; the rewrite upper-cases each value. `rewrite-prepare`
// writes them (in versions of rewriteLoadBlock records, untimed, its own process); `rewrite` is the measured
// process: it opens the database, loads the latest version, collects every record by iterating the prefix (as the
// bench chain's handler does), sets each rewritten value, saves the version and writes the synced commit info. Its
// peak RSS is the whole process's (getrusage), so only the open and the rewrite count, as the bench's "one" way.
//
// What it leaves out, so that it is a lower bound of an SDK node's cost: the SDK runs the handler's writes into the
// block's cache store first (cachekv: a map and a sorted index of every write) and copies them into the tree at the
// block's end; this program sets them into the tree directly.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"syscall"
	"time"
)

// rewriteLoadBlock is how many records each version of `rewrite-prepare` writes.
const rewriteLoadBlock = 50_000

// recordPrefix starts every record's key.
const recordPrefix = 0x01

func recordKey(i int) []byte {
	key := make([]byte, 5)
	key[0] = recordPrefix
	binary.BigEndian.PutUint32(key[1:], uint32(i))
	return key
}

func recordValue(i int) []byte {
	v := []byte(fmt.Sprintf("record %d", i))
	for len(v) < 32 {
		v = append(v, '.')
	}
	return v
}

// rewritePrepareResult is what `rewrite-prepare` prints.
type rewritePrepareResult struct {
	Workload string `json:"workload"`
	Records  int    `json:"records"`
	Version  int64  `json:"version"`
}

// runRewritePrepare writes `records` records into a new tree in `dir`, then compacts the database (a node that has
// run a while has its state in table files, not in the log).
func runRewritePrepare(dir string, records int) (*rewritePrepareResult, error) {
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	s.sync = false
	var version int64
	for from := 0; from < records; from += rewriteLoadBlock {
		for i := from; i < min(records, from+rewriteLoadBlock); i++ {
			if _, err := s.tree.Set(recordKey(i), recordValue(i)); err != nil {
				return nil, err
			}
		}
		if version, err = s.commit(); err != nil {
			return nil, err
		}
	}
	if err := s.db.ForceCompact(nil, nil); err != nil {
		return nil, err
	}
	return &rewritePrepareResult{Workload: "rewrite-prepare", Records: records, Version: version}, nil
}

// rewriteResult is what `rewrite` prints.
type rewriteResult struct {
	Workload string `json:"workload"`
	Records  int    `json:"records"`
	// OpenMs is loading the latest version; BlockMs the rewrite, SaveVersion and the synced commit info.
	OpenMs  float64 `json:"openMs"`
	BlockMs float64 `json:"blockMs"`
	// MaxRssMiB is the process's peak resident set (getrusage), open and rewrite included.
	MaxRssMiB float64 `json:"maxRssMiB"`
}

// runRewrite rewrites every record of the tree `rewrite-prepare` left in `dir`, in one version.
func runRewrite(dir string, records int) (*rewriteResult, error) {
	opened := time.Now()
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	if _, err := s.tree.Load(); err != nil {
		return nil, err
	}
	openMs := ms(time.Since(opened))

	started := time.Now()
	type record struct{ key, value []byte }
	all := make([]record, 0, records)
	end := []byte{recordPrefix + 1}
	it, err := s.tree.Iterator([]byte{recordPrefix}, end, true)
	if err != nil {
		return nil, err
	}
	for ; it.Valid(); it.Next() {
		all = append(all, record{it.Key(), it.Value()})
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if len(all) != records {
		return nil, fmt.Errorf("the tree holds %d records, expected %d", len(all), records)
	}
	for _, r := range all {
		if _, err := s.tree.Set(r.key, bytes.ToUpper(r.value)); err != nil {
			return nil, err
		}
	}
	if _, err := s.commit(); err != nil {
		return nil, err
	}
	blockMs := ms(time.Since(started))

	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil, err
	}
	// Linux reports ru_maxrss in KiB.
	return &rewriteResult{
		Workload: "rewrite", Records: records, OpenMs: openMs, BlockMs: blockMs, MaxRssMiB: float64(ru.Maxrss) / 1024,
	}, nil
}
