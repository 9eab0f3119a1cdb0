package kb

import "testing"

// TestDeviceLabelledMessage: a tool that runs one worker per GPU prints the
// message it got from a device behind that device's label ("GPU 0: unknown
// error"); the label makes a generic message the device's status. The
// label before prose, or a generic message inside a sentence, is not one.
func TestDeviceLabelledMessage(t *testing.T) {
	k := MustDefault()
	checkFirstStatus(t, k, []statusCase{
		{"GPU 0: unknown error", "cudaErrorUnknown"},
		{"[2018-08-02 10:11:12] GPU #1: unknown error", "cudaErrorUnknown"},
		{"[GPU 2]: out of memory", "cudaErrorMemoryAllocation"},
		// Look-alikes that stay nothing.
		{"GPU 0: I got an unknown error yesterday", ""},
		{"GPU 0: 71C, fan 60%, no unknown error so far", ""},
		{"the job failed with an unknown error on GPU 0", ""},
		{"Rank 0: unknown error", ""},
	})
}
