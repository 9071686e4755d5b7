/* A global far too large to model byte by byte: an error at its definition, not an allocation. */
#include <assert.h>
#include <tsocheck.h>

int arr[100000000000];

TSOCHECK void huge(void) {
  arr[5] = 1;
  assert(arr[5] == 1);
}
