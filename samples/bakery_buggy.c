/* Lamport's bakery algorithm for two threads, without fences.
 *
 * Bug: a thread's ticket (`number[i]`) and `choosing[i] = 0` may still be
 * buffered when it reads the other thread's `choosing`/`number`; the other
 * thread, reading ticket 0, enters as well (store→load reordering, TSO/PSO).
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#define N 2
volatile int choosing[N];
volatile int number[N];
int counter;

static void lock(int i) {
  choosing[i] = 1;
  int max = 0;
  for (int k = 0; k < N; k++) {
    int n = number[k];
    if (n > max) max = n;
  }
  number[i] = max + 1;
  choosing[i] = 0;
  for (int j = 0; j < N; j++) {
    if (j == i) continue;
    while (choosing[j])
      ;
    while (number[j] != 0 && (number[j] < number[i] || (number[j] == number[i] && j < i)))
      ;
  }
}

static void unlock(int i) { number[i] = 0; }

static void *worker(void *arg) {
  int i = (int)(long)arg;
  lock(i);
  counter = counter + 1; /* critical section */
  unlock(i);
  return NULL;
}

TSOCHECK void bakery(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)0L);
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
