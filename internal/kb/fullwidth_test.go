package kb

import "testing"

// TestFullWidthPunctuation: a message typed or pasted through a Chinese or
// Japanese input method carries full-width punctuation (U+FF1A "：", U+FF0C
// "，", U+FF08 "（", the ideographic space); it names its status as its
// ASCII spelling does. The punctuation joins no words that were apart, and
// the words around it still need their CUDA context.
func TestFullWidthPunctuation(t *testing.T) {
	k := MustDefault()
	checkFirstStatus(t, k, []statusCase{
		{"cuda error，initialization error", "cudaErrorInitializationError"},
		{"RuntimeError：CUDA error：unknown error", "cudaErrorUnknown"},
		{"CUDA error　initialization error", "cudaErrorInitializationError"},
		{"RuntimeError：CUDA error：700", "cudaErrorIllegalAddress"},
		{"RuntimeError：cuda runtime error （2） ： out of memory at THCCachingAllocator.cpp:510", "cudaErrorMemoryAllocation"},
		{"RuntimeError：NCCL error in：ProcessGroupNCCL.cpp:1191，unhandled system error，NCCL version 2.10.3", "ncclSystemError"},
		// A generic message without CUDA around it stays nothing.
		{"数据加载：initialization error，请重试", ""},
		{"训练：unknown error；重启后正常", ""},
		// A number beside a colon in prose is no CUDA error code.
		{"步骤：700，loss：0.25", ""},
	})
}

// TestNormalizeSeparators: punctuation and spaces outside ASCII part words
// as ASCII's do; other non-ASCII text stays part of its word.
func TestNormalizeSeparators(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"error，initialization error", " error initialization error "},
		{"RuntimeError：CUDA", " runtimeerror cuda "},
		{"out　of—memory", " out of memory "},
		{"café error", " café error "},
		{"显存不足error", " 显存不足error "},
	} {
		if got := normalize(c.in); got != c.want {
			t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
