/* malloc of a negative or absurd size is a memory error naming the size. */
#include <stdlib.h>
#include <tsocheck.h>

int n = -1;

TSOCHECK void negative_size(void) {
  char *q = malloc(n); /* line 8 */
  if (q) q[0] = 1;
  free(q);
}

TSOCHECK void huge_size(void) {
  long *q = calloc(1L << 28, 8); /* line 14: 2 GiB */
  if (q) q[0] = 1;
  free(q);
}
