/* Szymanski's mutual exclusion for two threads, fixed: every flag update is
 * followed by a full fence (__sync_synchronize), so it is visible before the
 * thread reads the other flag; the exit store gets a release fence so that
 * PSO cannot publish it before the critical section's store.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int flag[2];
int counter;

static void set_flag(int i, int v) {
  flag[i] = v;
  __sync_synchronize();
}

static void *worker(void *arg) {
  int i = (int)(long)arg, j = 1 - i;
  set_flag(i, 1);
  while (flag[j] >= 3)
    ;
  set_flag(i, 3);
  if (flag[j] == 1) {
    set_flag(i, 2);
    while (flag[j] != 4)
      ;
  }
  set_flag(i, 4);
  if (j < i)
    while (flag[j] >= 2)
      ;
  counter = counter + 1; /* critical section */
  if (j > i) {
    int f;
    do
      f = flag[j];
    while (f == 2 || f == 3);
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  flag[i] = 0;
  return NULL;
}

TSOCHECK void szymanski(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)0L);
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
