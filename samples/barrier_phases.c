/* A two-phase computation with a pthread barrier: in phase 1 each worker
 * fills its half of `a`; after the barrier, phase 2 reads the other half.
 * pthread_barrier_wait is a locked instruction on x86 (a full fence), so the
 * plain stores of phase 1 are visible to every reader of phase 2 under every
 * model; exactly one worker is told it is the serial thread.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#define N 2
pthread_barrier_t phase;
int a[2 * N], sum[2], serial;

static void *worker(void *arg) {
  long me = (long)arg;
  for (int i = 0; i < N; i++) a[me * N + i] = (int)me + 1; /* phase 1: my half */
  if (pthread_barrier_wait(&phase) == PTHREAD_BARRIER_SERIAL_THREAD) serial++;
  long other = 1 - me;
  for (int i = 0; i < N; i++) sum[me] += a[other * N + i]; /* phase 2: the other half */
  return 0;
}

TSOCHECK void two_phases(void) {
  pthread_t t0, t1;
  pthread_barrier_init(&phase, 0, 2);
  pthread_create(&t0, 0, worker, (void *)0);
  pthread_create(&t1, 0, worker, (void *)1);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(sum[0] == 2 * N && sum[1] == N);
  assert(serial == 1);
}
