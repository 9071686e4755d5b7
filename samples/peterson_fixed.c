/* Peterson's mutual exclusion for two threads, fixed: a full fence (mfence)
 * between the announcing stores and the loads of the other thread's state.
 * PSO needs two more store-store barriers (release fences): between
 * `flag[i] = 1` and `turn = j` (else the other thread may see the new turn
 * but not the flag), and before `flag[i] = 0` (else the flag may be
 * published before the critical section's store).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int flag[2];
volatile int turn;
int counter;

static void lock(int i) {
  int j = 1 - i;
  flag[i] = 1;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  turn = j;
  asm volatile("mfence" ::: "memory");
  while (flag[j] && turn == j)
    ;
}

static void unlock(int i) {
  __atomic_thread_fence(__ATOMIC_RELEASE);
  flag[i] = 0;
}

static void *worker(void *arg) {
  int i = (int)(long)arg;
  lock(i);
  counter = counter + 1; /* critical section */
  unlock(i);
  return NULL;
}

TSOCHECK void peterson(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)0L);
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
