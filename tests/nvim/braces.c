/* Two checks; the first has braces inside a string (the Neovim trace test
 * checks that the cursor below them is still in that check). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;
int r1, r2;

static void *t1(void *arg) {
  x = 1;
  r1 = y;
  return NULL;
}

static void *t2(void *arg) {
  y = 1;
  r2 = x;
  return NULL;
}

TSOCHECK_WITH("model=sc") void braces_in_strings(void) {
  const char *closing = "}}";
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0) && closing[0] == '}');
}

TSOCHECK void store_buffering(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}
