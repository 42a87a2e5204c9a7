/* Counts and times libgomp parallel regions (numba's OpenMP layer) for
   benchmarks/threads/profile_regions.py; GOMP_FORCE1=1 runs each region on one thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdatomic.h>
typedef void (*fn_t)(void*);
static void (*real)(fn_t, void*, unsigned, unsigned) = 0;
static long long count = 0, ns = 0;
static long long hist[32];
static int enabled = 1;
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e9+t.tv_nsec;}
void GOMP_parallel(fn_t fn, void *data, unsigned nthreads, unsigned flags){
  if(!real){ real = dlsym(RTLD_NEXT, "GOMP_parallel"); if(!real){void*h=dlopen("libgomp.so.1",RTLD_NOW|RTLD_NOLOAD); if(!h) h=dlopen("libgomp.so.1",RTLD_NOW); real=dlsym(h,"GOMP_parallel");}}
  double t0 = now();
  static int force = -1; if(force<0){char*e=getenv("GOMP_FORCE1"); force = e && *e=='1';} real(fn, data, force ? 1 : nthreads, flags);
  double d = now()-t0;
  count++; ns += (long long)d;
  int b=0; long long x=(long long)d; while(x>1 && b<31){x>>=1;b++;} hist[b]++;
}
long long gomp_count(void){return count;}
long long gomp_ns(void){return ns;}
void gomp_reset(void){count=0;ns=0;for(int i=0;i<32;i++)hist[i]=0;}
long long gomp_hist(int i){return hist[i];}
