#include <cstdio>
#include <cassert>
__global__ void oob(float *p, int n) { p[threadIdx.x * 1000000 + n] = 1.0f; }
__global__ void mis(char *p) { volatile int *q = (volatile int *)(p + 1 + 4 * threadIdx.x); *q = 7; }
__global__ void asr(int *p) { assert(p[threadIdx.x] < 0); }
__global__ void nul(float *p) { p[threadIdx.x] = 2.0f; }
int main(int argc, char **argv) {
  char which = argv[1][0];
  float *f; char *c; int *i;
  cudaMalloc(&f, 1024 * sizeof(float)); cudaMalloc(&c, 4096); cudaMalloc(&i, 1024 * sizeof(int));
  cudaMemset(i, 0, 1024 * sizeof(int));
  if (which == 'o') oob<<<1, 32>>>(f, 1 << 28);
  if (which == 'm') mis<<<1, 32>>>(c);
  if (which == 'a') asr<<<1, 32>>>(i);
  if (which == 'n') nul<<<1, 32>>>(nullptr);
  cudaError_t e = cudaDeviceSynchronize();
  printf("kernel %c: %s (%s, %d)\n", which, cudaGetErrorString(e), cudaGetErrorName(e), (int)e);
  return e != cudaSuccess;
}
