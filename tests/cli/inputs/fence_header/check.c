/* The checked file of fence_header/: side A's store is in handshake.h, side
 * B's in this file. Under TSO both sides can enter (store buffering); the fix
 * is one fence in each file.
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "handshake.h"

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

TSOCHECK void handshake(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, side_a, NULL);
  pthread_create(&b, NULL, side_b, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(in_a && in_b));
}
