/* A thread leaks the address of one of its locals; using it after the thread
   returned is a use after return (line 18). */
#include <pthread.h>
#include <tsocheck.h>

int *shared;

static void *leak(void *arg) {
  int local = 5;
  shared = &local;
  return 0;
}

TSOCHECK void use_after_return(void) {
  pthread_t t;
  pthread_create(&t, 0, leak, 0);
  pthread_join(t, 0);
  *shared = 1; /* line 18 */
}
