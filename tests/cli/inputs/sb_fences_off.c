/* Store buffering with fence synthesis turned off in the annotation. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y, r1, r2;

static void *t1(void *a) { x = 1; r1 = y; return NULL; }
static void *t2(void *a) { y = 1; r2 = x; return NULL; }

TSOCHECK_WITH("fences=off") void sb_no_fences(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}

TSOCHECK void sb_with_fences(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}

/* An unbraced if body: the fence goes after the whole if statement. */
static void *t3(void *a) {
  if (a) x = 1;
  r1 = y;
  return NULL;
}
static void *t4(void *a) {
  if (a) y = 1;
  r2 = x;
  return NULL;
}

TSOCHECK void sb_unbraced(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t3, (void *)1L);
  pthread_create(&b, NULL, t4, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}

/* Store and load in one statement: no statement boundary separates them, so
 * the fence after the statement cannot fix it and no fix may be offered. */
static void *t5(void *a) { x = 1, r1 = y; return NULL; }
static void *t6(void *a) { y = 1, r2 = x; return NULL; }

TSOCHECK void sb_comma(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t5, NULL);
  pthread_create(&b, NULL, t6, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}
