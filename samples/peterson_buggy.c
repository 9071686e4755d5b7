/* Peterson's mutual exclusion for two threads, without fences.
 *
 * Bug: each thread stores its flag and `turn`, then loads the other flag.
 * Under x86-TSO the stores can still sit in the store buffer when the load
 * runs (store→load reordering), so both threads read flag == 0 and enter
 * the critical section together: the increments of `counter` collide.
 *
 * expect: SC=verified TSO=violation PSO=violation
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
  turn = j;
  while (flag[j] && turn == j)
    ;
}

static void unlock(int i) { flag[i] = 0; }

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
