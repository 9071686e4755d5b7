/* A thread that never stops writing: the execution is cut (bounded), with the loop's location. */
#include <pthread.h>
#include <tsocheck.h>
int x;
static void *spin(void *a) { for (;;) x = x + 1; return 0; }
TSOCHECK void forever(void) {
  pthread_t t;
  pthread_create(&t, 0, spin, 0);
  pthread_join(t, 0);
}
