/* libc string functions on shared memory: each byte is a visible access. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <tsocheck.h>

char msg[8], copy[8];

static void *writer(void *arg) {
  strcpy(msg, "hi");
  return 0;
}

TSOCHECK void strings_after_join(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pthread_join(t, 0);
  assert(strlen(msg) == 2);
  assert(strcmp(msg, "hi") == 0);
  assert(strcmp(msg, "hj") < 0 && strcmp("hz", msg) > 0);
  assert(strncmp(msg, "ho", 1) == 0 && strncmp(msg, "ho", 2) != 0);
  strncpy(copy, msg, sizeof copy);  /* pads with NULs */
  assert(copy[1] == 'i' && copy[2] == 0 && copy[7] == 0);
  assert(memcmp(copy, "hi", 3) == 0);
  char *p = aligned_alloc(16, 32);
  void *q = 0;
  assert(posix_memalign(&q, 16, 32) == 0 && q != 0);
  p[0] = 'x';
  free(p);
  free(q);
}

char shared_name[4];

static void *namer(void *arg) {
  strcpy(shared_name, "ab");
  return 0;
}

TSOCHECK void strlen_races_with_strcpy(void) {
  pthread_t t;
  pthread_create(&t, 0, namer, 0);
  size_t n = strlen(shared_name);  /* may see 0, 1 or 2 bytes of "ab" */
  assert(n == 0 || n == 2);        /* fails: "a" without its "b" yet */
  pthread_join(t, 0);
}
