package explain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Inputs that are not logs: NCCL Flight Recorder dumps (pickle or JSON) and
// the JSON reports `cudadoctor run --report-dir` writes, one per node. They
// are recognised by their first bytes, whatever their names, so a directory
// may mix them with logs.

// inputKind is what sniffing decided a file is.
type inputKind int

const (
	kindLog inputKind = iota
	kindPickle
	kindJSONDoc
)

// sniffLen is how much of an input is looked at to tell what it is.
const sniffLen = 64

// sniff tells a pickle (protocols 2 to 5, the ones torch writes) and a
// JSON object from everything else, which is a log.
func sniff(head []byte) inputKind {
	if flightrec.IsPickle(head) {
		return kindPickle
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '{' {
		return kindJSONDoc
	}
	return kindLog
}

// artifacts holds what was read from the non-log inputs.
type artifacts struct {
	// maxBytes bounds what is read of one dump or report.
	maxBytes int
	paths    []string
	dumps    []*flightrec.Dump
	reports  []nodeReport
	// frFindings is the Flight Recorder analysis of all dumps together.
	frFindings []report.Finding
}

// nodeReport is one cudadoctor JSON report.
type nodeReport struct {
	path     string
	findings []report.Finding
	run      *report.RunInfo
	ended    time.Time // zero when the report does not say
}

// reportDoc is the part of a cudadoctor JSON report that merging reads.
type reportDoc struct {
	SchemaVersion *int `json:"schema_version"`
	Tool          struct {
		Name string `json:"name"`
	} `json:"tool"`
	Findings []report.Finding `json:"findings"`
	Run      *report.RunInfo  `json:"run"`
}

// runTimes are optional timestamps of a report's run section.
type runTimes struct {
	Run struct {
		EndedAt   string `json:"ended_at"`
		StartedAt string `json:"started_at"`
	} `json:"run"`
}

// splitInputs reads the Flight Recorder dumps and cudadoctor reports among
// the inputs and returns the rest, the logs, for the log diagnose. Each input
// is sniffed by peeking at its head, so a stream loses nothing.
func splitInputs(ctx context.Context, ins []*input, maxBytes int) ([]*input, *artifacts, error) {
	arts := &artifacts{maxBytes: maxBytes}
	var logs []*input
	var pickles []string
	for _, in := range ins {
		head, err := in.head(sniffLen)
		if err != nil {
			return nil, nil, readError(ctx, in.path, err)
		}
		kind := sniff(head)
		if kind == kindLog {
			logs = append(logs, in)
			continue
		}
		if kind == kindPickle && in.stream == nil {
			// Decoded below, in parallel: a job leaves one dump per rank.
			pickles = append(pickles, in.path)
			continue
		}
		isLog, err := arts.read(ctx, in, kind)
		if err != nil {
			return nil, nil, err
		}
		if isLog {
			logs = append(logs, in)
		}
	}
	if err := arts.readPickles(pickles); err != nil {
		return nil, nil, err
	}
	if len(arts.dumps) > 0 {
		fs, err := flightrec.Analyze(arts.dumps)
		if err != nil {
			return nil, nil, err
		}
		arts.frFindings = fs
	}
	return logs, arts, nil
}

// readError names the input, or is the interrupt itself.
func readError(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
}

func readHeadN(path string, n int) ([]byte, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	got, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:got], nil
}

// jsonPeekLen is how much of a JSON input is looked at for its top-level
// keys before it is read whole: JSON-lines logs (possibly one huge line)
// are told from dumps and reports without holding them in memory.
const jsonPeekLen = 1 << 20

// read decodes one non-log input. A JSON document that is neither a dump
// nor a cudadoctor report is a log after all (JSON-lines logging), and
// isLog says so; for a stream the bytes read are put back in front of it.
func (a *artifacts) read(ctx context.Context, in *input, kind inputKind) (isLog bool, err error) {
	path, name := in.path, in.path
	if path == "-" {
		name = "standard input"
	}
	if kind == kindJSONDoc {
		window, err := in.head(jsonPeekLen)
		if err != nil {
			return false, readError(ctx, name, err)
		}
		if !artifactKeys(topLevelKeys(window)) {
			return true, nil
		}
	}
	if kind == kindJSONDoc {
		// The first value is measured before it is loaded: a JSON-lines
		// log whose first record happens to carry a dump's keys is a log,
		// and a document over the cap is refused without holding it in
		// memory. A regular file is scanned and read again from its
		// start; what the scan reads of a stream is kept (beyond spillAt
		// in an unlinked temporary file) and read again in front of the
		// rest.
		var ext jsonExtent
		if in.stream == nil {
			ext, err = firstJSONValue(ctx, path)
		} else {
			kept := &spill{}
			var again io.Reader
			ext, err = scanFirstValue(ctx, in.stream, kept)
			if err == nil {
				again, err = kept.reader()
			}
			if err != nil {
				kept.Close()
			} else {
				in.stream = bufio.NewReaderSize(io.MultiReader(again, in.stream), sniffLen)
				in.closer = closers{kept, in.closer}
			}
		}
		if err != nil {
			return false, readError(ctx, name, err)
		}
		if ext.jsonLines {
			return true, nil
		}
		if ext.size > int64(a.maxBytes) {
			return false, fmt.Errorf("%s: a JSON document larger than %d MiB", name, a.maxBytes>>20)
		}
	}
	r := in.reader(ctx)
	if kind == kindPickle {
		d, err := a.decodePickle(r, path, name)
		if err != nil {
			return false, err
		}
		a.add(path, d)
		return false, nil
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(a.maxBytes)+1))
	if err != nil {
		return false, readError(ctx, name, err)
	}
	if len(data) > a.maxBytes {
		return false, fmt.Errorf("%s: a JSON document larger than %d MiB", name, a.maxBytes>>20)
	}
	// The first value decides: a JSON-lines log starts with an object too.
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	isReport, isDump := false, false
	if dec.Decode(&top) == nil {
		isReport, isDump = isCudadoctorReport(top), isDumpJSON(top)
	}
	if !isReport && !isDump {
		if in.stream != nil {
			in.stream = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(data), in.stream), sniffLen)
		}
		return true, nil
	}
	if isReport {
		if err := a.addReport(path, data); err != nil {
			return false, fmt.Errorf("%s: %v", name, err)
		}
		return false, nil
	}
	d, err := flightrec.DecodeBytes(data, path)
	if err != nil {
		return false, fmt.Errorf("%s: a JSON Flight Recorder dump that cannot be read: %v", name, err)
	}
	a.add(path, d)
	return false, nil
}

// jsonExtent is what a scan of a file's first JSON value found.
type jsonExtent struct {
	size      int64 // bytes up to the end of the first value (the file's size if it never ends)
	jsonLines bool  // the value is one line and more text follows: JSON-lines logging
}

// firstJSONValue scans the file at path for the end of the JSON value it
// opens, in fixed-size reads, without decoding or keeping it.
func firstJSONValue(ctx context.Context, path string) (jsonExtent, error) {
	f, err := os.Open(path)
	if err != nil {
		return jsonExtent{}, err
	}
	defer f.Close()
	return scanFirstValue(ctx, f, nil)
}

// scanFirstValue reads r until the extent of the JSON value it opens is
// known, handing every byte it reads to keep when keep is not nil.
func scanFirstValue(ctx context.Context, r io.Reader, keep io.Writer) (jsonExtent, error) {
	buf := make([]byte, 256<<10)
	var ext jsonExtent
	depth, inStr, esc, ended, newline := 0, false, false, false, false
	for {
		if err := ctx.Err(); err != nil {
			return ext, err
		}
		n, err := r.Read(buf)
		if keep != nil && n > 0 {
			if _, werr := keep.Write(buf[:n]); werr != nil {
				return ext, werr
			}
		}
		b := buf[:n]
		for i := 0; i < len(b); i++ {
			c := b[i]
			switch {
			case ended:
				if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
					ext.jsonLines = !newline
					return ext, nil
				}
			case inStr:
				if esc {
					esc = false
					continue
				}
				// Skip the string's ordinary bytes in one search.
				j := bytes.IndexAny(b[i:], `"\`)
				if j < 0 {
					i = len(b)
					continue
				}
				i += j
				if b[i] == '\\' {
					esc = true
				} else {
					inStr = false
				}
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					ended = true
					ext.size += int64(i + 1)
				}
			case c == '\n' && depth > 0:
				newline = true
			}
		}
		if !ended {
			ext.size += int64(n)
		}
		if err == io.EOF {
			return ext, nil
		}
		if err != nil {
			return ext, err
		}
	}
}

// spillAt is how much of a stream spill keeps in memory.
const spillAt = 4 << 20

// spill keeps what is written to it, the first spillAt bytes in memory and
// the rest in a temporary file, which is unlinked at once so that nothing
// is left behind however the process ends.
type spill struct {
	mem []byte
	f   *os.File
}

func (s *spill) Write(p []byte) (int, error) {
	if s.f == nil && len(s.mem)+len(p) <= spillAt {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "cudadoctor-stdin-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name())
		s.f = f
	}
	return s.f.Write(p)
}

// reader returns what was written, from its start.
func (s *spill) reader() (io.Reader, error) {
	if s.f == nil {
		return bytes.NewReader(s.mem), nil
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(s.mem), s.f), nil
}

func (s *spill) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// closers closes each of its non-nil members.
type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		if c != nil {
			c.Close()
		}
	}
	return nil
}

// artifactKeys says whether top-level keys may be those of a cudadoctor
// report or a Flight Recorder dump (the full check follows the read).
func artifactKeys(keys map[string]bool) bool {
	return (keys["schema_version"] && keys["tool"]) || (keys["version"] && (keys["entries"] || keys["pg_config"] || keys["pg_status"]))
}

// topLevelKeys lists the keys of the JSON object that opens b, as far as b
// goes, skipping over values without decoding them.
func topLevelKeys(b []byte) map[string]bool {
	keys := map[string]bool{}
	depth, inStr, esc, wantKey := 0, false, false, false
	keyStart := -1
	for i, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if keyStart >= 0 {
					keys[string(b[keyStart:i])] = true
					keyStart = -1
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 && wantKey {
				keyStart = i + 1
				wantKey = false
			}
		case '{', '[':
			depth++
			if depth == 1 {
				wantKey = c == '{'
			}
		case '}', ']':
			depth--
			if depth <= 0 {
				return keys
			}
		case ',':
			if depth == 1 {
				wantKey = true
			}
		}
	}
	return keys
}

// readPickles decodes pickle files on every core, keeping input order and
// reporting the first failure in that order.
func (a *artifacts) readPickles(paths []string) error {
	dumps := make([]*flightrec.Dump, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			dumps[i], errs[i] = a.readPickleFile(p)
		}()
	}
	wg.Wait()
	for i, p := range paths {
		if errs[i] != nil {
			return errs[i]
		}
		a.add(p, dumps[i])
	}
	return nil
}

func (a *artifacts) readPickleFile(path string) (*flightrec.Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	return a.decodePickle(f, path, path)
}

// decodePickle reads a pickle that must be a Flight Recorder dump.
func (a *artifacts) decodePickle(r io.Reader, path, name string) (*flightrec.Dump, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(a.maxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	if len(data) > a.maxBytes {
		return nil, fmt.Errorf("%s: a pickle larger than %d MiB is no Flight Recorder dump", name, a.maxBytes>>20)
	}
	if snapshotLike(data) {
		return nil, memorySnapshotError(path)
	}
	d, err := flightrec.DecodeBytes(data, path)
	if err != nil {
		if strings.Contains(err.Error(), "memory snapshot") {
			return nil, memorySnapshotError(path)
		}
		return nil, fmt.Errorf("%s: a pickle that is not a readable Flight Recorder dump: %v", name, err)
	}
	return d, nil
}

func (a *artifacts) add(path string, d *flightrec.Dump) {
	a.paths = append(a.paths, path)
	a.dumps = append(a.dumps, d)
}

func isCudadoctorReport(top map[string]json.RawMessage) bool {
	if _, ok := top["schema_version"]; !ok {
		return false
	}
	var tool struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(top["tool"], &tool) == nil && tool.Name == "cudadoctor"
}

func isDumpJSON(top map[string]json.RawMessage) bool {
	var version string
	if json.Unmarshal(top["version"], &version) != nil || version == "" {
		return false
	}
	for _, k := range []string{"entries", "pg_config", "pg_status"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

func (a *artifacts) addReport(path string, data []byte) error {
	var doc reportDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("a cudadoctor report that cannot be read: %v", err)
	}
	if doc.SchemaVersion == nil {
		return errors.New("a cudadoctor report without a schema_version")
	}
	if *doc.SchemaVersion > report.SchemaVersion {
		return fmt.Errorf("a cudadoctor report of schema version %d; this cudadoctor reads up to %d", *doc.SchemaVersion, report.SchemaVersion)
	}
	nr := nodeReport{path: path, findings: doc.Findings, run: doc.Run}
	var times runTimes
	if json.Unmarshal(data, &times) == nil {
		for _, s := range []string{times.Run.EndedAt, times.Run.StartedAt} {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				nr.ended = t
				break
			}
		}
	}
	for i := range nr.findings {
		f := &nr.findings[i]
		if f.Facts == nil {
			f.Facts = map[string]any{}
		}
		f.Facts["report"] = path
	}
	a.paths = append(a.paths, path)
	a.reports = append(a.reports, nr)
	return nil
}

// memorySnapshotError sends a memory snapshot to the command that reads it.
func memorySnapshotError(path string) error {
	return fmt.Errorf("%s is a CUDA memory snapshot, not a log or Flight Recorder dump: run 'cudadoctor memory %s'", path, path)
}

// snapshotLike spots a memory snapshot by its first key without decoding
// it: snapshots can be large, and their top-level dict opens with "segments".
func snapshotLike(data []byte) bool {
	head := data[:min(len(data), 256)]
	return bytes.Contains(head, []byte("segments")) && !bytes.Contains(head, []byte("pg_config")) && !bytes.Contains(head, []byte("entries"))
}

// apply merges the artifacts' findings with the log engine's into the job's
// verdict; which are root causes and which their consequences is the
// engine's decision (diagnose.MergeJob).
func (a *artifacts) apply(rep *report.Report) {
	if a == nil {
		return
	}
	rep.Inputs = append(rep.Inputs, a.paths...)
	rep.Rules = append(rep.Rules, flightrec.RuleDocs()...)
	if len(a.reports) == 0 && len(a.frFindings) == 0 {
		return
	}
	nodes := make([]diagnose.NodeReport, len(a.reports))
	for i, nr := range a.reports {
		nodes[i] = diagnose.NodeReport{Findings: nr.findings, Run: nr.run, Ended: nr.ended}
	}
	rep.Findings = diagnose.MergeJob(rep.Findings, nodes, a.frFindings)
}
