// Command iavl-bench runs the store workloads of bench/iavl.bench.ts against cosmos/iavl v1.2.2 on goleveldb, the
// tree and database every Cosmos SDK v0.50 chain commits to, and prints what it measured as one JSON object.
//
// The tree is opened the way the SDK's store/iavl opens it (fast nodes on, a 781,250-node cache: app.toml's
// default iavl-cache-size) under a prefix of one goleveldb database (the SDK's application.db). A version is made
// durable the way the SDK's root multistore commits: SaveVersion writes the tree's nodes, then a small batch with
// the version's commit info is written with sync, which makes everything before it in LevelDB's log durable too.
//
// Usage:
//
//	iavl-bench commit <dir> <keys> <writes> <rounds>   10k writes a version into a tree of <keys> keys
//	iavl-bench reads <dir> <keys> <versions> <samples> <rounds>
//	                                                   reads at latest and 1,000 versions back, proofs
//	iavl-bench serve-reads <dir> <keys> <versions> <samples>
//	                                                   the same workload, one timed phase per stdin line
//	                                                   (latest, back or proofs), so a caller can alternate
//	                                                   IAVL's phases with its own
//	iavl-bench rewrite-prepare <dir> <records>         the stepped-migration bench's records (rewrite.go)
//	iavl-bench rewrite <dir> <records>                 every record rewritten in one version: time, peak RSS
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/iavl"
	idb "github.com/cosmos/iavl/db"
)

const (
	keySize   = 32
	valueSize = 100
	// cacheSize is the SDK's default iavl-cache-size (app.toml), in nodes.
	cacheSize = 781_250
	// loadBlock is how many keys each version of the initial load writes (as bench/store.bench.ts loads).
	loadBlock = 20_000
)

// store is one IAVL tree in a prefix of one goleveldb database, committed as a node commits.
type store struct {
	db   *dbm.GoLevelDB
	tree *iavl.MutableTree
	// sync is false only while building the read workload's history, whose commits are not timed.
	sync bool
}

func open(dir string) (*store, error) {
	db, err := dbm.NewGoLevelDB("application", dir, nil)
	if err != nil {
		return nil, err
	}
	prefixed := dbm.NewPrefixDB(db, []byte("s/k:bank/"))
	tree := iavl.NewMutableTree(idb.NewWrapper(prefixed), cacheSize, false, iavl.NewNopLogger())
	return &store{db: db, tree: tree, sync: true}, nil
}

// commit saves the working tree as a new version and writes its commit info with sync, as the SDK's root multistore
// does after every store's SaveVersion.
func (s *store) commit() (int64, error) {
	hash, version, err := s.tree.SaveVersion()
	if err != nil {
		return 0, err
	}
	batch := s.db.NewBatch()
	defer batch.Close()
	key := make([]byte, 0, 32)
	key = append(key, "s/"...)
	key = strconv.AppendInt(key, version, 10)
	info := make([]byte, 8, 8+len(hash))
	binary.BigEndian.PutUint64(info, uint64(version))
	info = append(info, hash...)
	if err := batch.Set(key, info); err != nil {
		return 0, err
	}
	if err := batch.Set([]byte("s/latest"), info[:8]); err != nil {
		return 0, err
	}
	if !s.sync {
		return version, batch.Write()
	}
	return version, batch.WriteSync()
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

func randomKeys(count int) [][]byte {
	keys := make([][]byte, count)
	for i := range keys {
		keys[i] = randomBytes(keySize)
	}
	return keys
}

// load writes every key of population in versions of loadBlock keys.
func (s *store) load(population [][]byte) error {
	for from := 0; from < len(population); from += loadBlock {
		to := min(len(population), from+loadBlock)
		for _, k := range population[from:to] {
			if _, err := s.tree.Set(k, randomBytes(valueSize)); err != nil {
				return err
			}
		}
		if _, err := s.commit(); err != nil {
			return err
		}
	}
	return nil
}

func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// cpuMs is the CPU time this process has used so far, every thread (goleveldb's compaction included), in ms.
func cpuMs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// commitResult is what `commit` prints.
type commitResult struct {
	Workload     string    `json:"workload"`
	Keys         int       `json:"keys"`
	Writes       int       `json:"writes"`
	RoundsMs     []float64 `json:"roundsMs"`
	RoundsCpuMs  []float64 `json:"roundsCpuMs"`
	MedianMs     float64   `json:"medianMs"`
	WritesPerSec float64   `json:"writesPerSec"`
}

// runCommit times `rounds` versions of `writes` updates (Set calls, SaveVersion and the synced commit info) into a
// tree of `keys` keys: every key when the two are equal, random existing keys otherwise.
func runCommit(dir string, keys, writes, rounds int) (*commitResult, error) {
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	defer s.db.Close()
	population := randomKeys(keys)
	if err := s.load(population); err != nil {
		return nil, err
	}
	out := &commitResult{Workload: "commit", Keys: keys, Writes: writes}
	for r := 0; r < rounds; r++ {
		picks := population
		if keys != writes {
			picks = make([][]byte, writes)
			for i := range picks {
				picks[i] = population[mrand.IntN(len(population))]
			}
		}
		values := make([][]byte, writes)
		for i := range values {
			values[i] = randomBytes(valueSize)
		}
		start := time.Now()
		cpu := cpuMs()
		for i := 0; i < writes; i++ {
			if _, err := s.tree.Set(picks[i], values[i]); err != nil {
				return nil, err
			}
		}
		if _, err := s.commit(); err != nil {
			return nil, err
		}
		out.RoundsMs = append(out.RoundsMs, ms(time.Since(start)))
		out.RoundsCpuMs = append(out.RoundsCpuMs, cpuMs()-cpu)
	}
	out.MedianMs = median(out.RoundsMs)
	out.WritesPerSec = float64(writes) * 1000 / out.MedianMs
	return out, nil
}

// readsResult is what `reads` prints: microseconds per operation, median of the rounds.
type readsResult struct {
	Workload      string  `json:"workload"`
	Keys          int     `json:"keys"`
	Versions      int64   `json:"versions"`
	Samples       int     `json:"samples"`
	LatestUs      float64 `json:"latestUsPerRead"`
	BackUs        float64 `json:"backUsPerRead"`
	ProofUs       float64 `json:"proofUsPerProof"`
	ProofBytesAvg float64 `json:"proofBytesAvg"`
}

// readWorkload is the tree the read phases time, with the versions they read and the keys they sample.
type readWorkload struct {
	s           *store
	latest      int64
	now         *iavl.ImmutableTree
	back        *iavl.ImmutableTree
	sample      [][]byte
	proofSample [][]byte
	proofBytes  int
}

// newReadWorkload builds a tree of `keys` keys, then `versions` more versions of 40 random updates each, compacts
// the database, and opens the latest version and the one 1,000 versions back (through GetImmutable, as the SDK's
// queries at a height read). The caller closes w.s.db.
func newReadWorkload(dir string, keys int, versions int, samples int) (*readWorkload, error) {
	s, err := open(dir)
	if err != nil {
		return nil, err
	}
	s.sync = false
	population := randomKeys(keys)
	if err := s.load(population); err != nil {
		s.db.Close()
		return nil, err
	}
	var latest int64
	for v := 0; v < versions; v++ {
		for i := 0; i < 40; i++ {
			if _, err := s.tree.Set(population[mrand.IntN(len(population))], randomBytes(valueSize)); err != nil {
				s.db.Close()
				return nil, err
			}
		}
		if latest, err = s.commit(); err != nil {
			s.db.Close()
			return nil, err
		}
	}
	// Let LevelDB settle, as bench/store.bench.ts compacts both sides before timing reads.
	if err := s.db.ForceCompact(nil, nil); err != nil {
		s.db.Close()
		return nil, err
	}
	w := &readWorkload{s: s, latest: latest}
	if w.now, err = s.tree.GetImmutable(latest); err != nil {
		s.db.Close()
		return nil, err
	}
	if w.back, err = s.tree.GetImmutable(latest - 1000); err != nil {
		s.db.Close()
		return nil, err
	}
	w.sample = make([][]byte, samples)
	for i := range w.sample {
		w.sample[i] = population[mrand.IntN(len(population))]
	}
	w.proofSample = w.sample[:samples/10]
	return w, nil
}

// readPass times one pass over the sample at `tree`, in microseconds per read.
func readPass(tree *iavl.ImmutableTree, sample [][]byte, what string) (float64, error) {
	start := time.Now()
	for _, k := range sample {
		if v, err := tree.Get(k); err != nil || v == nil {
			return 0, fmt.Errorf("%s: %v %v", what, v, err)
		}
	}
	return ms(time.Since(start)) * 1000 / float64(len(sample)), nil
}

// proofPass times membership proofs of the proof sample at the latest version (GetMembershipProof, as a query with
// prove=true, and its encoding), in microseconds per proof.
func (w *readWorkload) proofPass() (float64, error) {
	start := time.Now()
	w.proofBytes = 0
	for _, k := range w.proofSample {
		proof, err := w.now.GetMembershipProof(k)
		if err != nil {
			return 0, err
		}
		// Encoding it is part of answering a query with a proof.
		encoded, err := proof.Marshal()
		if err != nil {
			return 0, err
		}
		w.proofBytes += len(encoded)
	}
	return ms(time.Since(start)) * 1000 / float64(len(w.proofSample)), nil
}

// phase runs one timed pass: "latest" (reads at the latest version), "back" (1,000 versions back) or "proofs".
func (w *readWorkload) phase(name string) (float64, error) {
	switch name {
	case "latest":
		return readPass(w.now, w.sample, "read at latest")
	case "back":
		return readPass(w.back, w.sample, "read 1,000 versions back")
	case "proofs":
		return w.proofPass()
	}
	return 0, fmt.Errorf("unknown phase %q (expected latest, back or proofs)", name)
}

// runReads times reads of random keys at the latest version and 1,000 versions back, and membership proofs at the
// latest version, `rounds` times each, and prints the medians.
func runReads(dir string, keys int, versions int, samples int, rounds int) (*readsResult, error) {
	w, err := newReadWorkload(dir, keys, versions, samples)
	if err != nil {
		return nil, err
	}
	defer w.s.db.Close()
	var latestUs, backUs, proofUs []float64
	for r := 0; r < rounds; r++ {
		for _, p := range []struct {
			name string
			out  *[]float64
		}{{"latest", &latestUs}, {"back", &backUs}, {"proofs", &proofUs}} {
			us, err := w.phase(p.name)
			if err != nil {
				return nil, err
			}
			*p.out = append(*p.out, us)
		}
	}
	return &readsResult{
		Workload: "reads", Keys: keys, Versions: w.latest, Samples: samples,
		LatestUs: median(latestUs), BackUs: median(backUs), ProofUs: median(proofUs),
		ProofBytesAvg: float64(w.proofBytes) / float64(len(w.proofSample)),
	}, nil
}

// phaseResult is one line `serve-reads` prints per phase it is asked for.
type phaseResult struct {
	Phase   string  `json:"phase"`
	UsPerOp float64 `json:"usPerOp"`
}

// serveReads builds the read workload, prints {"ready":true}, then runs one timed pass per line of stdin naming a
// phase (latest, back or proofs) and prints its figure as one JSON line, until stdin ends. The caller's own passes
// then run between IAVL's, so both sides meet the same load (the bench alternates them).
func serveReads(dir string, keys int, versions int, samples int) error {
	w, err := newReadWorkload(dir, keys, versions, samples)
	if err != nil {
		return err
	}
	defer w.s.db.Close()
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(map[string]bool{"ready": true}); err != nil {
		return err
	}
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		name := strings.TrimSpace(lines.Text())
		if name == "" {
			continue
		}
		us, err := w.phase(name)
		if err != nil {
			return err
		}
		if err := out.Encode(phaseResult{Phase: name, UsPerOp: us}); err != nil {
			return err
		}
	}
	return lines.Err()
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "iavl-bench: %q is not a positive integer\n", s)
		os.Exit(2)
	}
	return n
}

func main() {
	args := os.Args[1:]
	var result any
	var err error
	switch {
	case len(args) == 5 && args[0] == "commit":
		result, err = runCommit(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4]))
	case len(args) == 6 && args[0] == "reads":
		result, err = runReads(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4]), atoi(args[5]))
	case len(args) == 5 && args[0] == "serve-reads":
		if err := serveReads(args[1], atoi(args[2]), atoi(args[3]), atoi(args[4])); err != nil {
			fmt.Fprintf(os.Stderr, "iavl-bench: %v\n", err)
			os.Exit(1)
		}
		return
	case len(args) == 3 && args[0] == "rewrite-prepare":
		result, err = runRewritePrepare(args[1], atoi(args[2]))
	case len(args) == 3 && args[0] == "rewrite":
		result, err = runRewrite(args[1], atoi(args[2]))
	default:
		fmt.Fprintln(os.Stderr, "usage: iavl-bench commit <dir> <keys> <writes> <rounds> | reads <dir> <keys> <versions> <samples> <rounds> | serve-reads <dir> <keys> <versions> <samples> | rewrite-prepare <dir> <records> | rewrite <dir> <records>")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "iavl-bench: %v\n", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "iavl-bench: %v\n", err)
		os.Exit(1)
	}
}
