package report

// SharedFacts are the facts that more than one producer writes (the log
// engine and its knowledge base, the Flight Recorder analysis, the
// memory-snapshot analysis), each under one name, with what it means. A
// test fails when two producers write a name that is not listed here, so a
// second spelling of a known fact is caught where it is introduced.
var SharedFacts = map[string]string{
	"nccl_op":                    "the NCCL operation, as the source prints it (ALLREDUCE in a watchdog message, nccl:all_reduce in a Flight Recorder entry)",
	"seq":                        "the operation's sequence number in its process group (WorkNCCL SeqNum, a fingerprint's SequenceNumber, a Flight Recorder entry's collective_seq_id)",
	"timeout_ms":                 "the collective timeout in milliseconds",
	"device":                     "the CUDA device index",
	"requested_bytes":            "the allocation that failed, in bytes",
	"allocated_bytes":            "memory allocated to tensors by PyTorch's caching allocator, in bytes",
	"reserved_bytes":             "memory reserved by PyTorch's caching allocator, in bytes",
	"reserved_unallocated_bytes": "memory reserved by the caching allocator but not allocated to tensors, in bytes",
	"free_bytes":                 "memory CUDA reported free on the device, in bytes",
}

// RetiredFactNames are spellings once used for a shared fact, with the
// name that replaced them; no producer may write them again. ("op" stays
// free: the knowledge base uses it for the PyTorch operator.)
var RetiredFactNames = map[string]string{
	"seq_num":           "seq",
	"collective_seq_id": "seq",
	"op_type":           "nccl_op",
	"collective":        "nccl_op",
	"ran_for_ms":        "ran_ms",
	"device_free_bytes": "free_bytes",
	"unallocated_bytes": "reserved_unallocated_bytes",
}
