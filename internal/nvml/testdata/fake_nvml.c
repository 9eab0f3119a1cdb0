/* A stand-in for libnvidia-ml.so.1 and libcuda.so.1 with the C ABI of the
   real libraries, so the dlopen bindings are exercised without a GPU:
   GPU 0 is idle; GPU 1 is in Exclusive_Process mode, holds a 100 GiB
   process, has 2 uncorrectable ECC errors and a pending row remap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *dev_t_;
static int devs[2];
static int idx(dev_t_ h) { return (int)((int *)h - devs); }

int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char *b, unsigned n) { snprintf(b, n, "580.159.04"); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 13000; return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, dev_t_ *h) { if (i > 1) return 2; *h = &devs[i]; return 0; }
int nvmlDeviceGetName(dev_t_ h, char *b, unsigned n) { snprintf(b, n, "NVIDIA H200"); return 0; }
int nvmlDeviceGetUUID(dev_t_ h, char *b, unsigned n) { snprintf(b, n, "GPU-0000000%d-aaaa", idx(h)); return 0; }
typedef struct { char legacy[16]; unsigned domain, bus, device, devid, subsys; char busId[32]; } pci_t;
int nvmlDeviceGetPciInfo_v3(dev_t_ h, pci_t *p) { memset(p, 0, sizeof *p); snprintf(p->busId, 32, "00000000:%02X:00.0", idx(h) + 6); return 0; }
int nvmlDeviceGetCudaComputeCapability(dev_t_ h, int *a, int *b) { *a = 9; *b = 0; return 0; }
typedef struct { unsigned long long total, free, used; } mem_t;
int nvmlDeviceGetMemoryInfo(dev_t_ h, mem_t *m) { m->total = 150ull << 30; m->used = idx(h) ? 100ull << 30 : 0; m->free = m->total - m->used; return 0; }
int nvmlDeviceGetEccMode(dev_t_ h, int *c, int *p) { *c = 1; *p = 1; return 0; }
int nvmlDeviceGetTotalEccErrors(dev_t_ h, int type, int counter, unsigned long long *n) { *n = (type == 1 && counter == 0 && idx(h) == 1) ? 2 : 0; return 0; }
int nvmlDeviceGetRetiredPages(dev_t_ h, int cause, unsigned *n, unsigned long long *a) { return 3; }
int nvmlDeviceGetRemappedRows(dev_t_ h, unsigned *c, unsigned *u, unsigned *p, unsigned *f) { *c = 0; *u = 0; *p = idx(h); *f = 0; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(dev_t_ h, unsigned long long *r) { *r = idx(h) ? 0x41 : 0x1; return 0; }
int nvmlDeviceGetComputeMode(dev_t_ h, int *m) { *m = idx(h) ? 3 : 0; return 0; }
int nvmlDeviceGetMigMode(dev_t_ h, unsigned *c, unsigned *p) { *c = 0; *p = 0; return 0; }
typedef struct { unsigned pid; unsigned long long used; unsigned gi, ci; } proc_t;
int nvmlDeviceGetComputeRunningProcesses_v3(dev_t_ h, unsigned *n, proc_t *p) {
	if (idx(h) == 0) { *n = 0; return 0; }
	if (*n < 1 || p == NULL) { *n = 1; return 7; }
	*n = 1; p[0].pid = 4242; p[0].used = 100ull << 30; p[0].gi = p[0].ci = 0xffffffffu;
	return 0;
}
int nvmlSystemGetProcessName(unsigned pid, char *b, unsigned n) { snprintf(b, n, "python"); return 0; }

int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuInit(unsigned flags) { const char *c = getenv("FAKE_CUINIT"); return c ? atoi(c) : 0; }
int cuDeviceGetCount(int *n) { *n = 2; return 0; }
