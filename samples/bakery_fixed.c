/* Lamport's bakery algorithm for two threads, fixed: full fences after
 * raising `choosing[i]` and after publishing the ticket, so both are
 * visible before the other thread's state is read; a release fence before
 * `number[i] = 0` keeps the critical section's store first under PSO.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#define N 2
#define mfence() asm volatile("mfence" ::: "memory")
volatile int choosing[N];
volatile int number[N];
int counter;

static void lock(int i) {
  choosing[i] = 1;
  mfence();
  int max = 0;
  for (int k = 0; k < N; k++) {
    int n = number[k];
    if (n > max) max = n;
  }
  number[i] = max + 1;
  mfence();
  choosing[i] = 0;
  mfence();
  for (int j = 0; j < N; j++) {
    if (j == i) continue;
    while (choosing[j])
      ;
    while (number[j] != 0 && (number[j] < number[i] || (number[j] == number[i] && j < i)))
      ;
  }
}

static void unlock(int i) {
  __atomic_thread_fence(__ATOMIC_RELEASE);
  number[i] = 0;
}

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
