/* One check reaches floating point, the other does not: only the first is refused. */
#include <assert.h>
#include <tsocheck.h>

int x;
double d;

void scale(void) { d = d * 2.5; }

TSOCHECK void uses_float(void) { scale(); }

TSOCHECK void unrelated(void) {
  x = 1;
  assert(x == 2);
}
