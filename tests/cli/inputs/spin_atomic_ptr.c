/* Spin loops on an _Atomic pointer: Clang (-O0) passes the loaded pointer
   through a temporary stack slot, which must not make the iteration count as
   one with effects (it would be cut at the loop bound instead). */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

int flag0, flag1 = 1;
int *_Atomic p = &flag0;

static void *publish(void *arg) {
  atomic_store(&p, &flag1);
  return 0;
}

TSOCHECK void pointer_wait(void) {
  pthread_t t;
  pthread_create(&t, 0, publish, 0);
  while (!*atomic_load(&p))
    ;
  pthread_join(t, 0);
}

/* The MCS lock's wait loop: the node pointer itself is _Atomic. */
struct node {
  struct node *_Atomic next;
  _Atomic int locked;
};
struct node nodes[2];
struct node *_Atomic me = &nodes[0];

static void *hand_over(void *arg) {
  atomic_store(&nodes[0].locked, 0);
  return 0;
}

static void wait_node(struct node *_Atomic *slot) {
  while (atomic_load(&atomic_load(slot)->locked))
    ;
}

TSOCHECK void mcs_wait(void) {
  pthread_t t;
  atomic_store(&nodes[0].locked, 1);
  pthread_create(&t, 0, hand_over, 0);
  wait_node(&me);
  pthread_join(t, 0);
}
