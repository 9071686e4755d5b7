/* Thread-specific data: pthread_key_* / pthread_{get,set}specific and C11 tss_*.
 * Each thread sees only the values it set itself; racing key creations get
 * distinct keys. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <threads.h>
#include <tsocheck.h>

static pthread_key_t key;
static int seen[2];

static void *worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  assert(pthread_getspecific(key) == 0); /* nothing set in this thread yet */
  assert(pthread_setspecific(key, (void *)(id + 1)) == 0);
  seen[id] = (int)(intptr_t)pthread_getspecific(key);
  return 0;
}

TSOCHECK void per_thread_values(void) {
  assert(pthread_key_create(&key, 0) == 0);
  assert(pthread_setspecific(key, (void *)42) == 0);
  pthread_t a, b;
  pthread_create(&a, 0, worker, (void *)0);
  pthread_create(&b, 0, worker, (void *)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(seen[0] == 1 && seen[1] == 2);
  assert((intptr_t)pthread_getspecific(key) == 42);
}

static pthread_key_t k1, k2;

static void *make(void *p) {
  pthread_key_create((pthread_key_t *)p, 0);
  return 0;
}

TSOCHECK void racing_creations(void) {
  pthread_t a, b;
  pthread_create(&a, 0, make, &k1);
  pthread_create(&b, 0, make, &k2);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(k1 != k2);
}

static pthread_key_t inherited;

static void *expects_parent_value(void *arg) {
  assert(pthread_getspecific(inherited) == arg); /* values are not inherited */
  return 0;
}

TSOCHECK void not_inherited(void) {
  pthread_key_create(&inherited, 0);
  pthread_setspecific(inherited, (void *)7);
  pthread_t t;
  pthread_create(&t, 0, expects_parent_value, (void *)7);
  pthread_join(t, 0);
}

static tss_t slot;

static int c11_worker(void *arg) {
  assert(tss_get(slot) == 0);
  assert(tss_set(slot, arg) == thrd_success);
  return tss_get(slot) == arg ? 0 : 1;
}

TSOCHECK void c11_tss(void) {
  assert(tss_create(&slot, 0) == thrd_success);
  thrd_t t;
  int res = -1;
  thrd_create(&t, c11_worker, (void *)5);
  thrd_join(t, &res);
  assert(res == 0);
  assert(tss_get(slot) == 0);
  assert(pthread_setspecific(100, (void *)1) != 0); /* not a key: EINVAL */
  tss_delete(slot);
}
