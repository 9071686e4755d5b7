/* Two independent checks: an edit inside one re-checks only that one. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int x, y, r1, r2;

static void *sb0(void *p) { (void)p; x = 1; r1 = y; return 0; }
static void *sb1(void *p) { (void)p; y = 1; r2 = x; return 0; }

TSOCHECK void store_buffering(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, sb0, 0);
  pthread_create(&t1, 0, sb1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(r1 == 1 || r2 == 1);
}

volatile int data, flag, seen;

static void *mp0(void *p) { (void)p; data = 1; flag = 1; return 0; }
static void *mp1(void *p) { (void)p; if (flag) seen = data; else seen = 1; return 0; }

TSOCHECK void message_passing(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, mp0, 0);
  pthread_create(&t1, 0, mp1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(seen == 1);
}
