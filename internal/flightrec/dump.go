// Package flightrec reads PyTorch NCCL Flight Recorder dumps (pickle or
// JSON, one per rank) and finds the first collective on which the ranks of a
// distributed job diverged.
package flightrec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// MaxDumpBytes bounds what is read of one dump. The default ring of 2000
// entries with stacks pickles to about 1 MiB; a ring of a million entries,
// the largest size seen configured in practice, to a few hundred.
const MaxDumpBytes = 512 << 20

// Frame is one Python frame of the stack that issued a collective,
// innermost first in Entry.Frames.
type Frame struct {
	Name string
	File string
	Line int
}

// Entry is one recorded collective or point-to-point operation.
type Entry struct {
	RecordID      int64
	PGID          int64
	PGName        string
	PGDesc        string
	CollectiveSeq int64
	P2PSeq        int64
	OpID          int64
	ProfilingName string
	TimeCreatedNs int64
	InputSizes    [][]int64
	OutputSizes   [][]int64
	InputDtypes   []string
	OutputDtypes  []string
	// State is "scheduled", "started" or "completed".
	State     string
	Retired   bool
	TimeoutMs int64
	IsP2P     bool
	Frames    []Frame
}

// Completed says whether the operation finished on this rank.
func (e *Entry) Completed() bool { return e.State == "completed" }

// Op is the operation's name without the backend prefix ("all_reduce").
func (e *Entry) Op() string {
	if i := strings.IndexByte(e.ProfilingName, ':'); i >= 0 {
		return e.ProfilingName[i+1:]
	}
	return e.ProfilingName
}

// PG is a process group as the dump's pg_config describes it.
type PG struct {
	Name  string
	Desc  string
	Ranks []int
}

// PGStatus is the watchdog's view of one process group (-1 means none).
type PGStatus struct {
	LastEnqueued  int64
	LastStarted   int64
	LastCompleted int64
}

// Dump is one rank's Flight Recorder dump.
type Dump struct {
	Path string
	// Rank is the global rank that wrote the dump, -1 when unknown.
	Rank int
	// Format is "pickle" or "json".
	Format         string
	Version        string
	CommLibVersion string
	// PGs is keyed by process-group name; Status by process-group id.
	PGs     map[string]PG
	Status  map[string]PGStatus
	Entries []Entry
}

// IsPickle says whether data starts like a pickle of protocol 2 to 5, the
// protocols torch writes (2 for Flight Recorder, 4 or 5 for memory snapshots).
func IsPickle(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5
}

// Decode reads one dump, pickle or JSON, and names it path. The rank comes
// from the file name (…rank_3, …_3.pickle) or, failing that, from a process
// group that holds only this rank; it is -1 when neither tells.
func Decode(r io.Reader, path string) (*Dump, error) {
	return decodeLimit(r, path, MaxDumpBytes)
}

// decodeLimit is Decode refusing a dump larger than max bytes.
func decodeLimit(r io.Reader, path string, max int) (*Dump, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("larger than %d MiB, more than any Flight Recorder dump", max>>20)
	}
	return DecodeBytes(data, path)
}

// DecodeBytes is Decode over bytes already read.
func DecodeBytes(data []byte, path string) (*Dump, error) {
	var root any
	format := "pickle"
	switch {
	case IsPickle(data):
		v, err := decodePickle(data)
		if err != nil {
			return nil, err
		}
		root = v
	case looksLikeJSON(data):
		format = "json"
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&root); err != nil {
			return nil, fmt.Errorf("malformed JSON: %w", err)
		}
	default:
		return nil, errors.New("neither a pickle nor JSON: not a Flight Recorder dump")
	}
	d, err := fromValue(root)
	if err != nil {
		return nil, err
	}
	d.Path = path
	d.Format = format
	d.Rank = rankFromName(path)
	if d.Rank < 0 {
		d.Rank = rankFromPGs(d.PGs)
	}
	return d, nil
}

func looksLikeJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// IsDumpValue says whether a decoded document has the shape of a Flight
// Recorder dump: a version and at least one of its sections.
func IsDumpValue(v map[string]any) bool {
	if _, ok := v["version"].(string); !ok {
		return false
	}
	for _, k := range []string{"entries", "pg_config", "pg_status"} {
		if _, ok := v[k]; ok {
			return true
		}
	}
	return false
}

// fromValue reads the dump's fields, tolerating missing and unknown ones:
// the format gains fields with each version.
func fromValue(root any) (*Dump, error) {
	m, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("not a Flight Recorder dump: the top level is not a dictionary")
	}
	if !IsDumpValue(m) {
		if _, snap := m["segments"]; snap {
			return nil, errors.New("this is a CUDA memory snapshot, not a Flight Recorder dump")
		}
		return nil, errors.New("not a Flight Recorder dump: no version, entries or pg_config")
	}
	d := &Dump{Rank: -1, PGs: map[string]PG{}, Status: map[string]PGStatus{}}
	d.Version = str(m["version"])
	d.CommLibVersion = str(m["comm_lib_version"])
	if d.CommLibVersion == "" {
		d.CommLibVersion = str(m["nccl_version"])
	}
	if cfg, ok := m["pg_config"].(map[string]any); ok {
		for name, v := range cfg {
			pm, _ := v.(map[string]any)
			pg := PG{Name: name, Desc: str(pm["desc"]), Ranks: parseRanks(pm["ranks"])}
			if n := str(pm["name"]); n != "" {
				pg.Name = n
			}
			d.PGs[pg.Name] = pg
		}
	}
	if st, ok := m["pg_status"].(map[string]any); ok {
		for id, v := range st {
			sm, _ := v.(map[string]any)
			d.Status[id] = PGStatus{
				LastEnqueued:  intOr(sm["last_enqueued_collective"], -1),
				LastStarted:   intOr(sm["last_started_collective"], -1),
				LastCompleted: intOr(sm["last_completed_collective"], -1),
			}
		}
	}
	if es, ok := m["entries"].([]Entry); ok {
		d.Entries = es
	} else if es, ok := m["entries"].([]any); ok {
		d.Entries = make([]Entry, 0, len(es))
		for _, v := range es {
			em, ok := v.(map[string]any)
			if !ok {
				continue
			}
			d.Entries = append(d.Entries, entryFrom(em))
		}
	}
	return d, nil
}

func entryFrom(m map[string]any) Entry {
	b := newEntryBuilder()
	for k, v := range m {
		b.set(k, v)
	}
	return b.done()
}

// entryBuilder fills an Entry one field at a time, so a pickled entry can
// be read straight from the decoder's dict without building a map first.
type entryBuilder struct {
	e                  Entry
	started, completed int64
	// frames, when set, holds the frames already made from each decoded
	// list: a pickle names one list from many entries by memo reference,
	// and they then share one []Frame instead of a copy each.
	frames map[*any][]Frame
}

func newEntryBuilder() *entryBuilder {
	return &entryBuilder{e: Entry{RecordID: -1, PGID: -1}}
}

func (b *entryBuilder) set(k string, v any) {
	e := &b.e
	switch k {
	case "record_id":
		e.RecordID = intOr(v, -1)
	case "pg_id":
		e.PGID = intOr(v, -1)
	case "collective_seq_id":
		e.CollectiveSeq = intOr(v, 0)
	case "p2p_seq_id":
		e.P2PSeq = intOr(v, 0)
	case "op_id":
		e.OpID = intOr(v, 0)
	case "profiling_name":
		e.ProfilingName = str(v)
	case "time_created_ns":
		e.TimeCreatedNs = intOr(v, 0)
	case "input_sizes":
		e.InputSizes = sizes(v)
	case "output_sizes":
		e.OutputSizes = sizes(v)
	case "input_dtypes":
		e.InputDtypes = strs(v)
	case "output_dtypes":
		e.OutputDtypes = strs(v)
	case "state":
		e.State = str(v)
	case "retired":
		e.Retired = v == true
	case "timeout_ms":
		e.TimeoutMs = intOr(v, 0)
	case "is_p2p":
		e.IsP2P = v == true
	case "time_discovered_started_ns":
		b.started = intOr(v, 0)
	case "time_discovered_completed_ns":
		b.completed = intOr(v, 0)
	case "process_group":
		if pg, ok := v.([]any); ok {
			if len(pg) > 0 {
				e.PGName = str(pg[0])
			}
			if len(pg) > 1 {
				e.PGDesc = str(pg[1])
			}
		}
	case "frames":
		fs, _ := v.([]any)
		if b.frames != nil && len(fs) > 0 {
			if done, ok := b.frames[&fs[0]]; ok && len(done) <= len(fs) {
				e.Frames = done
				return
			}
			defer func() { b.frames[&fs[0]] = e.Frames }()
		}
		e.Frames = make([]Frame, 0, len(fs))
		for _, f := range fs {
			if fm, ok := f.(map[string]any); ok {
				e.Frames = append(e.Frames, Frame{Name: str(fm["name"]), File: str(fm["filename"]), Line: int(intOr(fm["line"], 0))})
			}
		}
	}
}

func (b *entryBuilder) done() Entry {
	e := b.e
	if e.PGName == "" && e.PGID >= 0 {
		e.PGName = strconv.FormatInt(e.PGID, 10)
	}
	if e.State == "" {
		// Older dumps carry only the discovery times (0 in JSON means none).
		switch {
		case b.completed > 0:
			e.State = "completed"
		case b.started > 0:
			e.State = "started"
		default:
			e.State = "scheduled"
		}
	}
	if len(e.Frames) == 0 {
		e.Frames = nil
	}
	return e
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// intOr reads an integer that a pickle stores as int64 and JSON as a number
// or, in pg_status, a decimal string.
func intOr(v any, def int64) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return int64(f)
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n
		}
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return def
}

func strs(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, str(x))
	}
	return out
}

func sizes(v any) [][]int64 {
	xs, _ := v.([]any)
	out := make([][]int64, 0, len(xs))
	for _, x := range xs {
		dims, _ := x.([]any)
		s := make([]int64, 0, len(dims))
		for _, d := range dims {
			s = append(s, intOr(d, -1))
		}
		out = append(out, s)
	}
	return out
}

// parseRanks reads pg_config's ranks, a string such as "[0, 1]" in every
// version seen, or a list.
func parseRanks(v any) []int {
	var out []int
	switch x := v.(type) {
	case string:
		for _, f := range strings.FieldsFunc(x, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
			if n, err := strconv.Atoi(f); err == nil && n >= 0 {
				out = append(out, n)
			}
		}
	case []any:
		for _, e := range x {
			if n := intOr(e, -1); n >= 0 {
				out = append(out, int(n))
			}
		}
	}
	sort.Ints(out)
	return out
}

var (
	rankInName     = regexp.MustCompile(`(?i)rank[_-]?(\d+)`)
	trailingNumber = regexp.MustCompile(`(\d+)$`)
)

// rankFromName reads the rank from the dump's file name: torch writes
// <prefix><rank>, with the prefix /tmp/nccl_trace_rank_ by default.
func rankFromName(path string) int {
	base := filepath.Base(path)
	if ms := rankInName.FindAllStringSubmatch(base, -1); len(ms) > 0 {
		if n, err := strconv.Atoi(ms[len(ms)-1][1]); err == nil {
			return n
		}
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	for _, s := range []string{base, stem} {
		if m := trailingNumber.FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n
			}
		}
	}
	return -1
}

// rankFromPGs finds the rank when some process group holds only this rank.
func rankFromPGs(pgs map[string]PG) int {
	for _, pg := range pgs {
		if len(pg.Ranks) == 1 {
			return pg.Ranks[0]
		}
	}
	return -1
}

// siblingName guesses the file name of another rank's dump from this one's.
func siblingName(path string, rank, other int) string {
	base := filepath.Base(path)
	r := strconv.Itoa(rank)
	if loc := rankInName.FindAllStringSubmatchIndex(base, -1); len(loc) > 0 {
		l := loc[len(loc)-1]
		if base[l[2]:l[3]] == r {
			return base[:l[2]] + strconv.Itoa(other) + base[l[3]:]
		}
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if strings.HasSuffix(stem, r) {
		return strings.TrimSuffix(stem, r) + strconv.Itoa(other) + filepath.Ext(base)
	}
	return ""
}
