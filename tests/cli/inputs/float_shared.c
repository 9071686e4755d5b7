/* Shared doubles and floats: message passing of a double (verified under SC
   and TSO, violated under PSO, where the flag's store can pass the data's),
   and a lost update on a double counter incremented with a plain `+=`. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

double data;
int ready;

static void *producer(void *arg) {
  data = 0.1 + 0.2; /* 0.30000000000000004 */
  ready = 1;
  return 0;
}

TSOCHECK void mp_double(void) {
  pthread_t t;
  pthread_create(&t, 0, producer, 0);
  if (ready) {
    double d = data;
    assert(d == 0.30000000000000004);
  }
  pthread_join(t, 0);
}

double total = 0.5;

static void *add_quarter(void *arg) {
  total += 0.25;
  return 0;
}

TSOCHECK void lost_update(void) {
  pthread_t a, b;
  pthread_create(&a, 0, add_quarter, 0);
  pthread_create(&b, 0, add_quarter, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(total == 1.0);
}

_Atomic double atotal = 0.5;
float maxseen = -1.0f;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *add_atomic(void *arg) {
  float v = *(float *)arg;
  atotal += v; /* a compare-and-swap loop on the double's bits */
  pthread_mutex_lock(&m);
  if (v > maxseen) maxseen = v;
  pthread_mutex_unlock(&m);
  return 0;
}

TSOCHECK void atomic_sum(void) {
  static float x = 0.25f, y = -0.0f;
  pthread_t a, b;
  pthread_create(&a, 0, add_atomic, &x);
  pthread_create(&b, 0, add_atomic, &y);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(atotal == 0.75 && maxseen == 0.25f);
}
