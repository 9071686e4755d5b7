// Long executions: W threads increment and decrement one counter in a loop
// that waits on nothing, so every execution runs to the loop bound
// (2 x --loop-bound RMWs per thread; --loop-bound 5000 reaches the engine's
// 10,000 events per thread). No execution completes within a benchmark's
// time; what is measured is how far the search gets and its peak memory
// (bench/long_executions.sh).
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef W
#define W 3
#endif

static atomic_int counter;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    atomic_fetch_add(&counter, 1);
    atomic_fetch_sub(&counter, 1);
  }
  return 0;
}

TSOCHECK void rmw_loops(void) {
  pthread_t t[W];
  for (int i = 0; i < W; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < W; i++) pthread_join(t[i], 0);
}
