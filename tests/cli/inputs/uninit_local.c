/* Reading an uninitialised local is a warning with the result, not an error. */
#include <tsocheck.h>

int g;

TSOCHECK void sometimes_uninit(void) {
  int x;
  if (g)
    x = 1;
  g = x; /* line 10: x is uninitialised when g == 0 */
}

TSOCHECK void initialised(void) {
  int y = 0;
  g = y;
}
