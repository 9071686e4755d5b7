/* aligned_alloc and posix_memalign: blocks aligned as asked; an alignment
   that is not a power of two is an error the call returns (C17, POSIX). */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <tsocheck.h>

TSOCHECK void aligned(void) {
  char *p = aligned_alloc(64, 100); /* C17: the size need not be a multiple */
  assert(p != 0 && (uintptr_t)p % 64 == 0);
  p[99] = 1;
  void *q = 0;
  assert(posix_memalign(&q, 256, 8) == 0 && q != 0 && (uintptr_t)q % 256 == 0);
  char *r = aligned_alloc(8, 8);
  assert(r != 0 && (uintptr_t)r % 8 == 0);
  free(p);
  free(q);
  free(r);
}

TSOCHECK void bad_alignment(void) {
  void *q = &q;
  assert(aligned_alloc(24, 48) == 0);
  assert(aligned_alloc(0, 16) == 0);
  assert(posix_memalign(&q, 24, 48) == 22 && q == &q);
  assert(posix_memalign(&q, 4, 48) == 22 && q == &q); /* not a multiple of sizeof(void *) */
}

TSOCHECK void use_of_failed_alloc(void) {
  int *p = aligned_alloc(12, 12);
  p[0] = 1; /* line 31 */
}
