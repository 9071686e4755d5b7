/* Barriers, semaphores, rwlocks and once (POSIX), each in a program that
   must verify and one that must fail. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <tsocheck.h>

/* --- barriers ----------------------------------------------------------- */
pthread_barrier_t bar;
int slot[2], seen[2], serial;

static void *phase(void *arg) {
  long i = (long)arg;
  slot[i] = 1;
  if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD) __atomic_fetch_add(&serial, 1, __ATOMIC_SEQ_CST);
  seen[i] = slot[1 - i];
  return 0;
}

TSOCHECK void barrier_phases(void) {
  pthread_t a, b;
  pthread_barrier_init(&bar, 0, 2);
  pthread_create(&a, 0, phase, (void *)0);
  pthread_create(&b, 0, phase, (void *)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(seen[0] == 1 && seen[1] == 1);  /* both stores happened before the barrier */
  assert(serial == 1);                    /* exactly one waiter is the serial thread */
}

pthread_barrier_t bar2;
int round_slot[2];

static void *rounds(void *arg) {
  long i = (long)arg;
  for (int r = 1; r <= 2; r++) {
    round_slot[i] = r;
    pthread_barrier_wait(&bar2);
    assert(round_slot[1 - i] == r);  /* the other thread's store of this round */
    pthread_barrier_wait(&bar2);     /* nobody starts the next round before both checked */
  }
  return 0;
}

TSOCHECK void barrier_reused(void) {
  pthread_t a, b;
  pthread_barrier_init(&bar2, 0, 2);
  pthread_create(&a, 0, rounds, (void *)0);
  pthread_create(&b, 0, rounds, (void *)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
}

pthread_barrier_t bar3;
static void *arrive(void *arg) {
  pthread_barrier_wait(&bar3);
  return 0;
}

TSOCHECK void barrier_missing_arrival(void) {
  pthread_t a, b;
  pthread_barrier_init(&bar3, 0, 3);  /* three parties, two arrive */
  pthread_create(&a, 0, arrive, 0);
  pthread_create(&b, 0, arrive, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}

/* --- semaphores --------------------------------------------------------- */
sem_t ready;
int data;

static void *produce(void *arg) {
  data = 42;
  sem_post(&ready);
  return 0;
}

TSOCHECK void sem_handoff(void) {
  pthread_t p;
  sem_init(&ready, 0, 0);
  pthread_create(&p, 0, produce, 0);
  sem_wait(&ready);
  assert(data == 42);
  pthread_join(p, 0);
}

sem_t guard, guard2;
int counter, counter2;

static void *inc(void *arg) {
  sem_wait(&guard);
  int t = counter;
  counter = t + 1;
  sem_post(&guard);
  return 0;
}

TSOCHECK void sem_as_mutex(void) {
  pthread_t a, b;
  sem_init(&guard, 0, 1);
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  int v = -1;
  sem_getvalue(&guard, &v);
  assert(v == 1);
}

static void *inc2(void *arg) {
  sem_wait(&guard2);
  int t = counter2;
  counter2 = t + 1;
  sem_post(&guard2);
  return 0;
}

TSOCHECK_WITH("model=sc") void sem_two_permits(void) {
  pthread_t a, b;
  sem_init(&guard2, 0, 2);  /* two permits: no mutual exclusion */
  pthread_create(&a, 0, inc2, 0);
  pthread_create(&b, 0, inc2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter2 == 2);
}

sem_t empty;
TSOCHECK void sem_trywait_empty(void) {
  sem_init(&empty, 0, 0);
  assert(sem_trywait(&empty) == -1);
  sem_post(&empty);
  assert(sem_trywait(&empty) == 0);
}

/* --- rwlocks ------------------------------------------------------------ */
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
int rx, ry;

static void *writer(void *arg) {
  pthread_rwlock_wrlock(&rw);
  rx = 1;
  ry = 1;
  pthread_rwlock_unlock(&rw);
  return 0;
}

static void *reader(void *arg) {
  pthread_rwlock_rdlock(&rw);
  int a = rx, b = ry;
  pthread_rwlock_unlock(&rw);
  assert(a == b);
  return 0;
}

TSOCHECK void rwlock_consistent_reads(void) {
  pthread_t w, r1, r2;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r1, 0, reader, 0);
  pthread_create(&r2, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r1, 0);
  pthread_join(r2, 0);
}

pthread_rwlock_t rw2 = PTHREAD_RWLOCK_INITIALIZER;
TSOCHECK void rwlock_try(void) {
  assert(pthread_rwlock_rdlock(&rw2) == 0);
  assert(pthread_rwlock_tryrdlock(&rw2) == 0);   /* readers share */
  assert(pthread_rwlock_trywrlock(&rw2) == EBUSY);
  pthread_rwlock_unlock(&rw2);
  pthread_rwlock_unlock(&rw2);
  assert(pthread_rwlock_trywrlock(&rw2) == 0);
  assert(pthread_rwlock_tryrdlock(&rw2) == EBUSY);
  pthread_rwlock_unlock(&rw2);
}

pthread_rwlock_t rw3 = PTHREAD_RWLOCK_INITIALIZER;
static void *reader_forever(void *arg) {
  pthread_rwlock_rdlock(&rw3);  /* never unlocked */
  return 0;
}

TSOCHECK void rwlock_writer_starves(void) {
  pthread_t r;
  pthread_create(&r, 0, reader_forever, 0);
  pthread_join(r, 0);
  pthread_rwlock_wrlock(&rw3);
}

/* --- once --------------------------------------------------------------- */
pthread_once_t once = PTHREAD_ONCE_INIT;
int inits, ready_flag;

static void setup(void) {
  inits++;
  ready_flag = 1;
}

static void *user(void *arg) {
  pthread_once(&once, setup);
  assert(ready_flag == 1);
  return 0;
}

TSOCHECK void once_runs_once(void) {
  pthread_t a, b;
  pthread_create(&a, 0, user, 0);
  pthread_create(&b, 0, user, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(inits == 1);
}
