/* C99 `inline` definitions without an external definition (only
   available_externally in C): tsocheck uses the inline body. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x;

inline int get(void) { return x; }
inline void put(int v) { x = v; }
static inline int twice(int v) { return 2 * v; }
extern inline int thrice(int v) { return 3 * v; }  /* an external definition */

static void *writer(void *arg) {
  put(twice(1));
  return NULL;
}

TSOCHECK void inline_ok(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  pthread_join(t, NULL);
  assert(get() == 2 && thrice(1) == 3);
}

/* The reader may run before the writer: fails. */
TSOCHECK void inline_race(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  assert(get() == 2);
  pthread_join(t, NULL);
}
