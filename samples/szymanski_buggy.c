/* Szymanski's mutual exclusion for two threads, without fences.
 *
 * Bug: the flag updates that announce a thread's progress (1 → 3 → 4) may
 * sit in its store buffer while it reads the other thread's flag
 * (store→load reordering), so both threads pass the doorway and collide in
 * the critical section.
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int flag[2];
int counter;

static void *worker(void *arg) {
  int i = (int)(long)arg, j = 1 - i;
  flag[i] = 1;                 /* standing outside the waiting room */
  while (flag[j] >= 3)         /* wait until the door is open */
    ;
  flag[i] = 3;                 /* standing in the doorway */
  if (flag[j] == 1) {          /* another thread is about to enter */
    flag[i] = 2;               /* waiting for it */
    while (flag[j] != 4)
      ;
  }
  flag[i] = 4;                 /* the door is closed */
  if (j < i)
    while (flag[j] >= 2)       /* lower ids go first */
      ;
  counter = counter + 1;       /* critical section */
  if (j > i) {
    int f;
    do                         /* let waiting threads through the door */
      f = flag[j];             /* (read once: two reads could see 3, then 2) */
    while (f == 2 || f == 3);
  }
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
