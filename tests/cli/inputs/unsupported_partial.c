/* One check reaches long double (refused), the other does not: only the first is refused. */
#include <assert.h>
#include <tsocheck.h>

int x;
long double d;

void scale(void) { d = d * 2.5; }

TSOCHECK void uses_float(void) { scale(); }

TSOCHECK void unrelated(void) {
  x = 1;
  assert(x == 2);
}
