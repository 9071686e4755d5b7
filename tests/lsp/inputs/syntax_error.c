#include <tsocheck.h>

int x;

TSOCHECK void broken(void) {
  x = 1
}
