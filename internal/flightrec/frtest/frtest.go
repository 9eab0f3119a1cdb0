// Package frtest writes NCCL Flight Recorder dumps as torch lays them out
// (pickle protocol 2 with memoized strings, or the JSON form), so tests and
// benchmarks can build multi-rank jobs without a GPU.
package frtest

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/pickle/pickletest"
)

// Tuple is a pickled tuple (process_group is one).
type Tuple = pickletest.Tuple

// IntList is a list torch's jit Pickler wraps in build_intlist.
type IntList = pickletest.IntList

// EncodePickle writes v as torch::jit::Pickler does: protocol 2, memoized
// strings.
func EncodePickle(v any) []byte { return pickletest.Encode(v, 2) }

// encodeJSON writes the JSON form: no stacks, 0 for unknown times, pg_status
// numbers as strings, as _dump_nccl_trace_json does.
func EncodeJSON(v map[string]any) []byte {
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
	}
	if st, ok := v["pg_status"].(map[string]any); ok {
		js := map[string]any{}
		for id, s := range st {
			m := map[string]any{}
			for k, n := range s.(map[string]any) {
				m[k] = fmt.Sprint(n)
			}
			js[id] = m
		}
		out["pg_status"] = js
	}
	if es, ok := v["entries"].([]any); ok {
		var list []any
		for _, e := range es {
			m := map[string]any{}
			for k, x := range e.(map[string]any) {
				switch {
				case k == "frames":
					continue
				case x == nil:
					m[k] = 0
				default:
					m[k] = unwrap(x)
				}
			}
			list = append(list, m)
		}
		out["entries"] = list
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return b
}

func unwrap(v any) any {
	switch x := v.(type) {
	case Tuple:
		return []any(x)
	case IntList:
		return []any(x)
	}
	return v
}

// Call is one collective a synthetic rank makes.
type Call struct {
	PG    string
	Op    string
	Size  int
	Dtype string
	Line  int
	State string // default "completed"
	P2P   bool
}

// Job describes a synthetic distributed job: per rank, its calls in order.
type Job struct {
	Version string
	PGs     map[string][]int // pg name -> global ranks
	Calls   map[int][]Call
	Script  string
}

// Dump builds one rank's dump as torch 2.11 lays it out.
func (j Job) Dump(rank int) map[string]any {
	version := j.Version
	if version == "" {
		version = "2.10"
	}
	script := j.Script
	if script == "" {
		script = "/workspace/train.py"
	}
	cfg := map[string]any{}
	status := map[string]any{}
	for name, ranks := range j.PGs {
		member := false
		for _, r := range ranks {
			member = member || r == rank
		}
		if !member {
			continue
		}
		desc := "undefined"
		if name == "0" {
			desc = "default_pg"
		}
		cfg[name] = map[string]any{"name": name, "desc": desc, "ranks": RanksString(ranks)}
	}
	seq := map[string]int64{}
	p2pSeq := map[string]int64{}
	last := map[string][3]int64{}
	var entries []any
	for i, c := range j.Calls[rank] {
		state := c.State
		if state == "" {
			state = "completed"
		}
		if c.P2P {
			p2pSeq[c.PG]++
		} else {
			seq[c.PG]++
		}
		t := int64(1795325714474014111 + i*1000 + rank)
		var started, completed any
		if state != "scheduled" {
			started = t + 10
		}
		if state == "completed" {
			completed = t + 20
		}
		dtype := c.Dtype
		if dtype == "" {
			dtype = "Float"
		}
		e := map[string]any{
			"record_id":                    int64(i),
			"pg_id":                        PGID(c.PG),
			"process_group":                Tuple{c.PG, cfgDesc(cfg, c.PG)},
			"collective_seq_id":            seq[c.PG],
			"p2p_seq_id":                   p2pSeq[c.PG],
			"op_id":                        int64(i + 1),
			"profiling_name":               "nccl:" + c.Op,
			"time_created_ns":              t,
			"input_sizes":                  []any{[]any{int64(c.Size)}},
			"output_sizes":                 []any{[]any{int64(c.Size)}},
			"input_dtypes":                 []any{dtype},
			"output_dtypes":                []any{dtype},
			"state":                        state,
			"time_discovered_started_ns":   started,
			"time_discovered_completed_ns": completed,
			"retired":                      state == "completed",
			"timeout_ms":                   int64(20000),
			"is_p2p":                       c.P2P,
			"thread_id":                    "140527198486848",
			"thread_name":                  "python",
			"frames": []any{
				map[string]any{"name": c.Op, "filename": "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", "line": int64(3068)},
				map[string]any{"name": "wrapper", "filename": "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", "line": int64(83)},
				map[string]any{"name": "<module>", "filename": script, "line": int64(c.Line)},
			},
		}
		entries = append(entries, e)
		if !c.P2P {
			l := last[c.PG]
			l[0] = seq[c.PG]
			if state != "scheduled" {
				l[1] = seq[c.PG]
			}
			if state == "completed" {
				l[2] = seq[c.PG]
			}
			last[c.PG] = l
		}
	}
	for name := range cfg {
		l, ok := last[name]
		if !ok {
			continue
		}
		status[fmt.Sprint(PGID(name))] = map[string]any{
			"last_enqueued_collective": l[0], "last_started_collective": orMinus(l[1]), "last_completed_collective": orMinus(l[2]),
		}
	}
	d := map[string]any{
		"version":   version,
		"pg_config": cfg,
		"pg_status": status,
		"entries":   entries,
	}
	if version == "2.10" {
		d["comm_lib_version"] = "2.28.9"
	}
	return d
}

func orMinus(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

func RanksString(rs []int) string {
	s := "["
	for i, r := range rs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(r)
	}
	return s + "]"
}

func cfgDesc(cfg map[string]any, name string) string {
	if m, ok := cfg[name].(map[string]any); ok {
		return m["desc"].(string)
	}
	return "undefined"
}

func PGID(name string) int64 {
	var n int64
	fmt.Sscan(name, &n)
	return n
}

// Write stores every rank's dump under dir as <prefix><rank> and returns the paths.
func (j Job) Write(t testing.TB, dir, prefix string, asJSON bool) []string {
	t.Helper()
	var ranks []int
	for r := range j.Calls {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	var paths []string
	for _, r := range ranks {
		v := j.Dump(r)
		var b []byte
		if asJSON {
			b = EncodeJSON(v)
		} else {
			b = EncodePickle(v)
		}
		p := fmt.Sprintf("%s/%s%d", dir, prefix, r)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
