package kb

import (
	"strings"
	"testing"
)

// TestLossesAndIBVerbsWordings: a plural "losses" key with NaN as its value,
// DeepSpeed's "Overflow detected. Skipping step" as the loss scaler's
// back-off, and NCCL's ibverbs wrapper failures (with a reason, with "failed
// with error", or bare) and failed InfiniBand work completions; each with
// look-alikes from healthy runs that must stay quiet.
func TestLossesAndIBVerbsWordings(t *testing.T) {
	k := MustDefault()
	cases := []struct{ text, want string }{
		{"iteration : 7, losses : nan", "nonfinite"},
		{"epoch 3 losses: nan", "nonfinite"},
		{"hai-a100-3:3778851:3779883 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed", "nccl-error"},
		{"spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed", "nccl-error"},
		{"node1:12:30 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable", "nccl-error"},
		{"gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129", "nccl-error"},
		{"gpu1:100:200 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<41235> with error 12, opcode 0, len 0, vendor err 129 (Recv)", "nccl-error"},
		// Look-alikes: healthy progress lines and NCCL's start-up chatter.
		{"iteration : 7, losses : 0.2437", ""},
		{"losses: 1.234 (1.301)  loss_scale: 65536.0", ""},
		{"node08:6561:6561 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ibs3:10.252.0.211<0>", ""},
		{"node08:6561:6561 [0] NCCL INFO Call to connect returned Connection refused, retrying", ""},
		{"node1:1234:1300 [0] NCCL WARN Call to ibv_open_device failed\nnode1:1234:1300 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", ""},
		{"node1:1234:1300 [0] misc/ibvwrap.cc:120 NCCL WARN Call to ibv_query_port failed", ""},
		{"[2021-01-26 22:04:09,190] [INFO] [fused_optimizer.py:316:_update_scale] Reducing dynamic loss scale from 65536 to 32768.0", ""},
	}
	for _, c := range cases {
		if got := classOf(k, strings.Split(c.text, "\n")...); got != c.want {
			t.Errorf("%.90q: got %q, want %q", c.text, got, c.want)
		}
	}
	// One skipped step is the scaler settling: a notice; step after step is
	// a run that keeps overflowing.
	line := "[2021-01-26 22:04:09,191] [INFO] [logging.py:60:log_dist] [Rank 0] Overflow detected. Skipping step. Attempted loss scale: 8.0, reducing to 4.0"
	if v, ok := k.Classify([]string{line}); !ok || v.Class.ID != "nonfinite" || !v.Notice() {
		t.Errorf("one overflow: ok %v class %v notice %v", ok, v.Class, v.Notice())
	}
	if v, ok := k.Classify([]string{line, line, line}); !ok || v.Class.ID != "nonfinite" || v.Notice() {
		t.Errorf("three overflows: ok %v class %v notice %v", ok, v.Class, v.Notice())
	}
}
