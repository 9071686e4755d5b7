/* Dekker's mutual exclusion for two threads, without fences.
 *
 * Bug: `flag[i] = 1` may still be in the store buffer when the thread reads
 * `flag[j]` (store→load reordering under x86-TSO and PSO), so both threads
 * see the other's flag down and enter the critical section together.
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int flag[2];
volatile int turn;
int counter;

static void *worker(void *arg) {
  int i = (int)(long)arg, j = 1 - i;
  flag[i] = 1;
  while (flag[j]) {
    if (turn != i) {
      flag[i] = 0;
      while (turn != i)
        ;
      flag[i] = 1;
    }
  }
  counter = counter + 1; /* critical section */
  turn = j;
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
