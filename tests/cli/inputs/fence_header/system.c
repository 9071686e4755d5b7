/* Like check.c, with side A's store in a system header (-isystem sys):
 * fence synthesis names the header and offers no edit.
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include <sys_handshake.h>

int flag_a, flag_b;
int in_a, in_b;

static void *side_a(void *arg) {
  in_a = enter_a();
  return NULL;
}

static void *side_b(void *arg) {
  flag_b = 1;
  in_b = flag_a == 0;
  return NULL;
}

TSOCHECK void handshake_system(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, side_a, NULL);
  pthread_create(&b, NULL, side_b, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(in_a && in_b));
}
