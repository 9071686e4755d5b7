/* C11 <threads.h>: threads, mutexes, condition variables, call_once, and
   pthread_cond_timedwait's two outcomes. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <threads.h>
#include <time.h>
#include <tsocheck.h>

mtx_t m;
int total;

static int add(void *arg) {
  mtx_lock(&m);
  total += (int)(long)arg;
  mtx_unlock(&m);
  return (int)(long)arg * 10;
}

TSOCHECK void c11_threads_and_mutex(void) {
  thrd_t a, b;
  int ra = 0, rb = 0;
  mtx_init(&m, mtx_plain);
  assert(thrd_create(&a, add, (void *)1) == thrd_success);
  assert(thrd_create(&b, add, (void *)2) == thrd_success);
  thrd_join(a, &ra);
  thrd_join(b, &rb);
  assert(total == 3 && ra == 10 && rb == 20);
  mtx_destroy(&m);
}

mtx_t m2;
static int holder(void *arg) {
  mtx_lock(&m2);
  mtx_unlock(&m2);
  return 0;
}

TSOCHECK void c11_trylock_busy(void) {
  thrd_t h;
  mtx_init(&m2, mtx_plain);
  thrd_create(&h, holder, 0);
  int r = mtx_trylock(&m2);
  assert(r == thrd_success);  /* fails when the holder has the mutex */
  mtx_unlock(&m2);
  thrd_join(h, 0);
}

once_flag flag = ONCE_FLAG_INIT;
int inits;
static void init(void) { inits++; }
static int caller(void *arg) {
  call_once(&flag, init);
  return 0;
}

TSOCHECK void c11_call_once(void) {
  thrd_t a, b;
  thrd_create(&a, caller, 0);
  thrd_create(&b, caller, 0);
  thrd_join(a, 0);
  thrd_join(b, 0);
  assert(inits == 1);
}

mtx_t cm;
cnd_t cv;
int ready;
static int signaller(void *arg) {
  mtx_lock(&cm);
  ready = 1;
  cnd_signal(&cv);
  mtx_unlock(&cm);
  return 0;
}

TSOCHECK void c11_condition(void) {
  thrd_t s;
  mtx_init(&cm, mtx_plain);
  cnd_init(&cv);
  thrd_create(&s, signaller, 0);
  mtx_lock(&cm);
  while (!ready) cnd_wait(&cv, &cm);
  mtx_unlock(&cm);
  thrd_join(s, 0);
  assert(ready == 1);
}

pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
int flag2;
static void *setter(void *arg) {
  pthread_mutex_lock(&pm);
  flag2 = 1;
  pthread_cond_signal(&pc);
  pthread_mutex_unlock(&pm);
  return 0;
}

TSOCHECK void timedwait_may_time_out(void) {
  pthread_t t;
  struct timespec ts = {0, 0};
  pthread_create(&t, 0, setter, 0);
  pthread_mutex_lock(&pm);
  int rc = 0;
  while (!flag2 && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&pc, &pm, &ts);
  assert(flag2 == 1);  /* fails: the wait can time out first */
  pthread_mutex_unlock(&pm);
  pthread_join(t, 0);
}
