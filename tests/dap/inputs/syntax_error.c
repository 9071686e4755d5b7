/* Does not compile: the debug adapter's launch fails with the compiler's
 * file:line:col message. */
#include <tsocheck.h>

int flag;

TSOCHECK void missing_semicolon(void) {
  flag = 1
}
