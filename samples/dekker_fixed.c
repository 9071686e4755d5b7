/* Dekker's mutual exclusion for two threads, fixed: a full fence after every
 * `flag[i] = 1` (so the flag is visible before `flag[j]` is read), and a
 * release fence before the exit stores (PSO could otherwise publish
 * `turn`/`flag` before the critical section's store).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

volatile int flag[2];
volatile int turn;
int counter;

static void *worker(void *arg) {
  int i = (int)(long)arg, j = 1 - i;
  flag[i] = 1;
  atomic_thread_fence(memory_order_seq_cst);
  while (flag[j]) {
    if (turn != i) {
      flag[i] = 0;
      while (turn != i)
        ;
      flag[i] = 1;
      atomic_thread_fence(memory_order_seq_cst);
    }
  }
  counter = counter + 1; /* critical section */
  atomic_thread_fence(memory_order_release);
  turn = j;
  atomic_thread_fence(memory_order_release);
  flag[i] = 0;
  return NULL;
}

TSOCHECK void dekker(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)0L);
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
