/* A Latin-1 (not UTF-8) string in an assert, and a violation in the first execution. */
#include <assert.h>
#include <tsocheck.h>

int x;

TSOCHECK void latin1(void) {
  x = 1;
  assert(x == 2 && "café");
}
