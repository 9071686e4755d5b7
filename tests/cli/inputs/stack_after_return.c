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

int *_Atomic published;
int later;

static void *publish_local(void *arg) {
  int local = 0;
  published = &local;
  later = 1; /* still running when the reader first gets the pointer */
  return 0;
}

/* No join before the access: it may come after the thread returned. */
TSOCHECK void racing_return(void) {
  pthread_t t;
  pthread_create(&t, 0, publish_local, 0);
  int *q;
  while (!(q = published))
    ;
  *q = 1; /* line 38 */
  pthread_join(t, 0);
}
