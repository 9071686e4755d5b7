/* Store buffering in several shapes: fence synthesis turned off in the
 * annotation, on by default, an unbraced if body, and a comma expression. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y, r1, r2;

static void *t1(void *a) { x = 1; r1 = y; return NULL; }
static void *t2(void *a) { y = 1; r2 = x; return NULL; }

static void sb(void *(*f)(void *), void *(*g)(void *)) {
  pthread_t a, b;
  pthread_create(&a, NULL, f, (void *)1L);
  pthread_create(&b, NULL, g, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}

TSOCHECK_WITH("fences=off") void sb_no_fences(void) { sb(t1, t2); }

TSOCHECK void sb_with_fences(void) { sb(t1, t2); }

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

TSOCHECK void sb_unbraced(void) { sb(t3, t4); }

/* Store and load in one statement: no statement boundary separates them, so
 * the fence after the statement cannot fix it and no fix may be offered. */
static void *t5(void *a) { x = 1, r1 = y; return NULL; }
static void *t6(void *a) { y = 1, r2 = x; return NULL; }

TSOCHECK void sb_comma(void) { sb(t5, t6); }
