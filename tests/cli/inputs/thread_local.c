/* Thread-local storage: __thread, _Thread_local and thread_local give every
   thread its own copy, initialised from the initialiser. */
#include <assert.h>
#include <pthread.h>
#include <threads.h> /* thread_local (a keyword in C23) */
#include <tsocheck.h>

__thread int counter = 10;           /* private: only its own thread reaches it */
_Thread_local int hits[3] = {1, 2, 3};
static thread_local long base = 100;
int seen[2];

static void *worker(void *arg) {
  int n = (int)(long)arg;
  for (int i = 0; i < n; i++) counter++;
  hits[1] += n;
  seen[n - 2] = counter + base * hits[1];
  base = 0;
  return 0;
}

/* Each thread counts only its own increments: verified. */
TSOCHECK void own_counters(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)2L);
  pthread_create(&b, 0, worker, (void *)3L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(seen[0] == 12 + 100 * 4);
  assert(seen[1] == 13 + 100 * 5);
}

/* The main thread's copy is unaffected by the workers, and theirs start from
   the initialiser whatever main did to its own copy before spawning them. */
TSOCHECK void main_copy_unaffected(void) {
  counter = 99;
  hits[1] = 7;
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)2L);
  pthread_create(&b, 0, worker, (void *)3L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 99 && hits[0] == 1 && hits[1] == 7 && hits[2] == 3 && base == 100);
  assert(seen[0] == 12 + 100 * 4 && seen[1] == 13 + 100 * 5);
}

/* A copy would be shared: fails (the workers' copies each count to 2 and 3). */
TSOCHECK void not_shared(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)2L);
  pthread_create(&b, 0, worker, (void *)3L);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(seen[1] == 15 + 100 * 7);
}
