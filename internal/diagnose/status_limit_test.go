package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// Words tying a library failure to the batch size make a memory status
// (cuDNN's internal error, cuBLAS's failed handle) stand for a full
// card, but not a status that judges the call's arguments: cuDNN's
// NOT_SUPPORTED and cuBLAS's NOT_SUPPORTED / INVALID_VALUE come back
// before any memory is sought, and with a large batch they are the
// library's size limit (cuDNN batch norm's row limit, batched GEMM's
// batch count).
func TestBatchSizeWordsAndArgumentStatuses(t *testing.T) {
	e := New(kb.MustDefault())
	for _, tc := range []struct {
		name, log, want string
	}{
		{"cudnn not supported with batch words (microsoft/NeuronBlocks#26)",
			"When I set the batch size as 128, there will occurs an problem. CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input. When I set a smaller batch size, it goes pretty well.\n",
			"cudnn-error"},
		{"cublas not supported with batch words",
			"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, opb, m, n, k, alpha, a, CUDA_R_16F, lda, stridea, b, CUDA_R_16F, ldb, strideb, beta, c, CUDA_R_16F, ldc, stridec, num_batches, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`\nIt works when I reduce the batch size to 256.\n",
			"cublas-error"},
		{"cudnn internal error with batch words",
			"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\nIt only happens when the batch size is too large; with batch size 8 it trains.\n",
			"oom"},
		{"cublas handle failure with batch words",
			"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\nI had to reduce the batch size to 4 to get past it.\n",
			"oom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := explainText(t, e, tc.log)
			if len(fs) == 0 || fs[0].Class != tc.want {
				got := "nothing"
				if len(fs) > 0 {
					got = fs[0].Class
				}
				t.Errorf("said %s, want %s", got, tc.want)
			}
		})
	}
}
