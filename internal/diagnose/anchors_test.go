package diagnose

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestRequiredSet(t *testing.T) {
	tests := []struct {
		re   string
		want []string
	}{
		{`(?:exit code|exit status) 137\b`, []string{"exit code 137", "exit status 137"}},
		{`CUDA out of memory\. Tried to allocate (?P<x>\d+)`, []string{"CUDA out of memory. Tried to allocate "}},
		{`(?i)killed`, nil},
		{`abc|x+`, []string{"abc", "x"}},
		{`Signal 9 \(SIGKILL\) received by PID (?P<pid>\d+)|died with <Signals\.SIGKILL`, []string{"Signal 9 (SIGKILL) received by PID ", "died with <Signals.SIGKILL"}},
		{`a?bcd`, []string{"bcd"}},
		{`[Cc]uda error 7`, []string{"Cuda error 7", "cuda error 7"}},
		{`\bloss ?=(?:tensor\()?inf\b`, []string{"loss=inf", "loss =inf", "loss=tensor(inf", "loss =tensor(inf"}},
		{`\bNVML\b.{0,200}\bGPU is lost\b`, []string{"GPU is lost"}},
	}
	for _, tt := range tests {
		got := requiredSet(tt.re)
		sort.Strings(got)
		sort.Strings(tt.want)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("requiredSet(%q) (-want +got):\n%s", tt.re, d)
		}
	}
}

// Every line a signature matches must hold one of its anchors: checked on
// the knowledge base's own examples.
func TestAnchorsAreRequired(t *testing.T) {
	k := kb.MustDefault()
	for _, c := range k.Classes {
		for _, ex := range append(c.Examples.Match, c.Examples.NoMatch...) {
			for _, line := range strings.Split(ex.Text, "\n") {
				for _, m := range k.Matches(line) {
					as := anchors(&kb.KB{Classes: []*kb.Class{{Signatures: []kb.Signature{*m.Signature}}}})
					found := false
					for _, a := range as {
						found = found || strings.Contains(line, a)
					}
					if !found {
						t.Errorf("%s/%s: no anchor of %q is in the line it matches: %q", m.Class.ID, m.Signature.ID, as, line)
					}
				}
			}
		}
	}
}

// The prefilter samples one window every (shortest anchor - 3) bytes: a
// short anchor ("nan", "700") would make it look at nearly every byte of a
// log. Signatures whose fixed texts are that short need a longer regex-derived
// anchor (a few spellings of "loss: nan", "CUDA error").
func TestAnchorsAreLongEnough(t *testing.T) {
	for _, a := range anchors(kb.MustDefault()) {
		if len(a) < 6 {
			t.Errorf("anchor %q is shorter than 6 bytes", a)
		}
	}
}

// Every trigger keeps the pre-filter's stride as the knowledge base's
// anchors do: one short word (a clock's "MHz") once made the scan of a
// long log look at every byte.
func TestTriggersAreLong(t *testing.T) {
	for _, s := range triggers(kb.MustDefault()) {
		if len(s) < minTrigger {
			t.Errorf("trigger %q is shorter than %d bytes", s, minTrigger)
		}
	}
}

// A message re-flowed at the space after a signature's fixed text
// ("undefined symbol:" ending one line, the symbol opening the next) still
// reaches the parser: anchors do not end in the space.
func TestAnchorAtAReflowedBreak(t *testing.T) {
	e := New(kb.MustDefault())
	log := "loading /opt/env/lib/python3.11/site-packages/fused_ops_cuda.so failed, undefined symbol:\n" +
		"_ZN3c104cuda9SetDeviceEi\n"
	if fs := explainText(t, e, log); len(fs) == 0 || fs[0].Class != "library-mismatch" {
		t.Errorf("findings: %+v", fs)
	}
	for _, a := range anchors(kb.MustDefault()) {
		if len(strings.TrimSpace(a)) >= minTrimmedAnchor && strings.TrimSpace(a) != a {
			t.Errorf("anchor %q has a space at an end", a)
		}
	}
}

// The step lines a healthy run prints by the million must not reach
// verification: an anchor that every such line holds ("grad_norm", once)
// made the scan of a long log verify and test every line. These are the
// progress formats of trainers that log the gradient norm with each step.
// NCCL's start-up lines, printed by every rank of every job, may hold an
// anchor ("Could not") but must not become candidates: a failure word once
// keyed a library-loading signature, and the plugins' names hold a
// library's ("libnccl").
func TestHealthyStepLinesAreNotCandidates(t *testing.T) {
	pf := New(kb.MustDefault()).prefilter()
	for _, line := range []string{
		"{'loss': 1.2311, 'grad_norm': 0.8731, 'learning_rate': 5e-05, 'epoch': 0.58}",
		"[rank0]: step 1200 loss 0.4213 lr 3.0e-04 grad_norm 1.230 tokens/s 151234",
		"Epoch: [3]  [ 100/1251]  eta: 0:05:00  lr: 0.001435  min_lr: 0.001435  loss: 6.5993 (6.5925)  loss_scale: 8192.0000 (8646.0600)  grad_norm: 0.3922 (0.4411)  time: 0.2700  data: 0.0010",
		"Epoch 3: 45%|████▌     | 450/1000 [01:23<01:40,  5.47it/s, loss=0.312, v_num=0, grad_norm=0.981]",
		"Epoch(train) [1][ 50/500]  lr: 1.0000e-04  eta: 0:10:00  time: 0.4000  data_time: 0.0100  grad_norm: 2.3456  loss: 0.9876",
	} {
		if pf.Cursor([]byte(line+"\n")).Next(0) >= 0 {
			t.Errorf("a healthy step line reaches verification: %s", line)
		}
	}
	for _, line := range []string{
		"vm:1392:1392 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so",
		"vm:1393:1393 [1] NCCL INFO NET/Plugin: Could not find: libnccl-net.so",
		"vm:1393:1393 [1] NCCL INFO Failed to initialize NET plugin IB",
	} {
		buf := []byte(line + "\n")
		cur := pf.Cursor(buf)
		if cur.Next(0) < 0 {
			continue
		}
		if pf.Accept(buf[:len(line)], cur.LineIDs(0, len(line), nil)) {
			t.Errorf("a healthy NCCL line is a candidate: %s", line)
		}
	}
}
