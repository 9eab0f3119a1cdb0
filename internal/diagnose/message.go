package diagnose

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/shellquote"
)

// message writes the one-line verdict: the class's sentence with its facts,
// then the detail the evidence gives.
func (e *Engine) message(b *built, v kb.Verdict, facts map[string]any) string {
	if strings.HasPrefix(v.Class.ID, "device-assert") && facts != nil {
		// Name the operation in words; the kernel and assertion stay in
		// the facts and the evidence.
		if op, bad := assertOperation(v.Class.ID, v.Facts); op != "" {
			vf := make(map[string]string, len(v.Facts)+2)
			for k, x := range v.Facts {
				vf[k] = x
			}
			vf["operation"], facts["operation"] = op, op
			if bad != "" {
				vf["bad_input"], facts["bad_input"] = bad, bad
			}
			v.Facts = vf
		}
	}
	vals := factStrings(facts)
	msg := v.Message()
	if msg == "" {
		msg = v.Class.Title
	}
	var detail []string
	if strings.HasPrefix(v.Class.ID, "device-assert") {
		var d []string
		// "operator" is the name of a lambda, and _assert_async_cuda_kernel
		// the generic check behind torch._assert_async: neither helps.
		if k, ok := vals["kernel"]; ok && k != "operator" && !strings.HasPrefix(k, "_assert_async") && !strings.Contains(msg, k) {
			d = append(d, k)
		}
		if n, ok := facts["failed_threads"].(int); ok && n > 1 {
			d = append(d, fmt.Sprintf("%d threads", n))
		}
		if len(d) > 0 {
			detail = append(detail, strings.Join(d, ", "))
		}
	}
	if d := collectiveDetail(facts); d != "" && !strings.HasPrefix(v.Class.ID, "device-assert") {
		// Skip what the knowledge base's sentence already says.
		c, mismatch := vals["nccl_op"], fingerprintMismatch(facts)
		if mismatch && strings.HasPrefix(d, c+" #") && strings.Contains(msg, c) {
			// "ALLREDUCE #0: rank 0 has ...": the sentence names the collective.
			if i := strings.Index(d, ": "); i > 0 {
				d = d[i+2:]
			}
		}
		if op, ok := vals["nccl_op"]; mismatch || !ok || !strings.Contains(msg, op) {
			detail = append(detail, d)
		}
	}
	if k, ok := vals["kernel_location"]; ok {
		// "scale_kernel+0x410 in s09.py:9": the offset means nothing to
		// the reader; the sanitizer's full record is in the evidence.
		if i := strings.Index(k, "+0x"); i > 0 {
			if j := strings.IndexByte(k[i:], ' '); j > 0 {
				k = k[:i] + k[i+j:]
			} else {
				k = k[:i]
			}
		}
		if !strings.Contains(msg, "invalid") {
			k = strings.ToLower(vals["sanitizer_error"][:1]) + vals["sanitizer_error"][1:] + " at " + k
		}
		detail = append(detail, k)
	}
	if _, ok := vals["memory_growth"]; ok {
		detail = append(detail, "allocated memory climbed at every logged step before it")
	}
	// Say which framework a JAX or TensorFlow log comes from: the fixes
	// name its settings, not PyTorch's.
	switch vals["framework"] {
	case "jax":
		detail = append(detail, "JAX/XLA")
	case "tensorflow":
		detail = append(detail, "TensorFlow")
	}
	if len(detail) > 0 {
		msg += " (" + strings.Join(detail, "; ") + ")"
	}
	return msg
}

// assertOperation names, from a device assertion's kernel, text and source
// file, the PyTorch operation that failed (and for range checks what was
// wrong with its input): the kernel name alone (vectorized_gather_kernel,
// or "operator" for a lambda) means little to most readers.
func assertOperation(class string, f map[string]string) (op, bad string) {
	k, a, src := f["kernel"], f["assertion"], filepath.Base(f["kernel_src"])
	has := func(s string) bool { return strings.Contains(a, s) || strings.Contains(k, s) }
	switch class {
	case "device-assert-index":
		switch {
		case has("vectorized_gather") || has("vectorized gather"):
			return "an embedding or gather lookup", ""
		case has("indexSelect") || has("srcSelectDimSize"):
			return "an index_select or embedding lookup", ""
		case has("dstAddDimSize"):
			return "index_add", ""
		case has("dstCopyDimSize"):
			return "index_copy", ""
		case has("dstFillDimSize"):
			return "index_fill", ""
		case has("idx_dim") || src == "ScatterGatherKernel.cu":
			return "a scatter or gather", ""
		case has("-sizes[i] <= index") || src == "IndexKernel.cu":
			return "tensor indexing (x[idx])", ""
		}
	case "device-assert-range":
		switch {
		case f["probability_check"] != "" || has("probability tensor"):
			return "torch.multinomial", "inf, nan or negative probabilities"
		case has("input_val >= zero && input_val <= one"):
			return "binary_cross_entropy", "values outside [0, 1]"
		}
	case "device-assert-target":
		if strings.Contains(k, "nll_loss") || has("n_classes") {
			return "cross_entropy/nll_loss", ""
		}
	}
	return "", ""
}

// collectiveDetail names the collective and what went wrong with it.
func collectiveDetail(facts map[string]any) string {
	var shapes []string
	for k := range facts {
		if strings.HasPrefix(k, "rank_") && strings.HasSuffix(k, "_shape") {
			shapes = append(shapes, k)
		}
	}
	sort.Strings(shapes)
	if len(shapes) == 2 {
		r0 := strings.TrimSuffix(strings.TrimPrefix(shapes[0], "rank_"), "_shape")
		r1 := strings.TrimSuffix(strings.TrimPrefix(shapes[1], "rank_"), "_shape")
		s0, s1 := fmt.Sprint(facts[shapes[0]]), fmt.Sprint(facts[shapes[1]])
		d := fmt.Sprintf("%v #%v: rank %s has shape %s, rank %s has %s", facts["nccl_op"], facts["seq"], r0, s0, r1, s1)
		if n0, n1 := numel(s0), numel(s1); n0 >= 0 && n1 >= 0 && n0 != n1 {
			d += fmt.Sprintf(": %d vs %d elements", n0, n1)
		}
		return d
	}
	if op, ok := facts["nccl_op"]; ok {
		d := fmt.Sprintf("%v SeqNum=%v", op, facts["seq"])
		if n, ok := facts["numel_in"]; ok {
			d += fmt.Sprintf(", %v elements", n)
		}
		if t, ok := facts["timeout_ms"]; ok {
			d += fmt.Sprintf(", timed out after %v ms", t)
		}
		return d
	}
	return ""
}

// numel multiplies a printed shape "[4, 256]"; -1 when unparsable.
func numel(shape string) int {
	s := strings.Trim(shape, "[] ")
	if s == "" {
		return 1
	}
	n := 1
	for _, p := range strings.Split(s, ",") {
		var d int
		if _, err := fmt.Sscan(strings.TrimSpace(p), &d); err != nil {
			return -1
		}
		n *= d
	}
	return n
}

// asyncHint adds the honest notes about asynchronous reporting.
func (b *built) asyncHint(classAsync, hint, dsa bool) {
	b.f.Facts = ensure(b.f.Facts)
	if classAsync && hint {
		b.f.Facts["reported_asynchronously"] = true
	}
	if classAsync && !hint {
		b.f.Facts["launch_blocking"] = true
	}
	b.dsa = dsa
}

func ensure(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// finish fills the remedies once the job's command is known.
func (b *built) finish(cmd string, ranks int) {
	command := cmd
	// wrapped is the command under cudadoctor run; srun starts one wrapper
	// per task, so there the wrapper goes inside srun.
	wrapped := ""
	if command == "" {
		script := "your_script.py"
		if b.script != "" {
			script = shellquote.Word(b.script)
		}
		if b.f.Rank != nil || ranks > 1 {
			n := ranks
			if n < 2 {
				n = 2
			}
			if b.fail != nil && b.fail.srun() {
				// srun --label numbered the tasks: srun started them.
				command = fmt.Sprintf("srun --label -n %d python %s", n, script)
				wrapped = fmt.Sprintf("srun --label -n %d cudadoctor run -- python %s", n, script)
			} else {
				command = fmt.Sprintf("torchrun --nproc_per_node=%d %s", n, script)
			}
		} else {
			command = "python " + script
		}
	}
	if wrapped == "" {
		wrapped = "cudadoctor run -- " + command
	}
	var rems []string
	if b.suspect >= 0 {
		rems = append(rems, suspectRemedy(b.suspect))
	}
	if b.async {
		where := "the line the traceback names"
		if b.f.Reported != nil {
			where = fmt.Sprintf("%s:%d", filepath.Base(b.f.Reported.Path), b.f.Reported.Line)
		}
		rems = append(rems, fmt.Sprintf("CUDA reports kernel errors asynchronously, so %s is probably not where this one happened. Find the real line with `%s`, or run `CUDA_LAUNCH_BLOCKING=1 %s` and read the new traceback.", where, wrapped, command))
	}
	if b.inplace {
		where := "the line the traceback names"
		if b.f.Reported != nil {
			where = fmt.Sprintf("%s:%d", filepath.Base(b.f.Reported.Path), b.f.Reported.Line)
		}
		rems = append(rems, fmt.Sprintf("Autograd notices an in-place change only when backward needs the changed tensor, so %s is where it was reported, not the write. Find the write with `%s` (it re-runs once with anomaly detection and names the line), or call torch.autograd.set_detect_anomaly(True) before the forward pass: its warning names the operation that saved the tensor, and the write is there or later.", where, wrapped))
	}
	if b.class == nil {
		// No class: what build said would settle it.
		rems = append(rems, b.f.Remedies...)
	}
	if b.class != nil {
		extra := map[string]string{"command": command, "script": b.script}
		if b.f.Origin != nil {
			extra["origin"] = fmt.Sprintf("%s:%d", b.f.Origin.Path, b.f.Origin.Line)
		}
		seenStart := map[string]bool{}
		for _, r := range b.verdict.Remedies(extra) {
			// The engine already said whether and how to re-run blocking.
			if (b.async || b.launchB) && strings.Contains(r, "CUDA_LAUNCH_BLOCKING") {
				continue
			}
			// Likewise for the anomaly-detection advice of an in-place error.
			if b.inplace && strings.Contains(r, "set_detect_anomaly") {
				continue
			}
			if dup := firstWords(r, 4); seenStart[dup] {
				// The same advice in a less specific wording.
				continue
			} else {
				seenStart[dup] = true
			}
			rems = append(rems, r)
		}
	}
	// Under CUDA_LAUNCH_BLOCKING=1 the traceback line is the origin: the
	// note on how to find it would send the reader to re-run what ran.
	if b.dsa && b.async {
		rems = append(rems, "PyTorch's hint to compile with TORCH_USE_CUDA_DSA is a build-time option: the pip and conda wheels are built without it, so setting it as an environment variable changes nothing. CUDA_LAUNCH_BLOCKING=1 is the switch that works with them.")
	}
	b.f.Remedies = rems
}

var _ = report.Error

// firstWords is s's first n words in lower case without punctuation, so
// that "Re-run with CUDA_LAUNCH_BLOCKING=1 (or ..." and "Re-run with
// CUDA_LAUNCH_BLOCKING=1: if ..." start alike.
func firstWords(s string, n int) string {
	w := adviceWordRE.FindAllString(strings.ToLower(s), n)
	return strings.Join(w, " ")
}

var adviceWordRE = lazyre.New(`[a-z0-9_]+`)

// leadingWords is s's first n words, spacing collapsed, case kept (a quoted
// error line keeps its spelling).
func leadingWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}
