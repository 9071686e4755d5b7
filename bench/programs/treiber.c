/* Bench program: a Treiber stack (CAS on the top pointer), N threads each
 * push a node and pop one, OPS times (default once); the popped nodes must
 * be distinct and every pop finds a node (each thread pushes before it
 * pops). N=2..3 with OPS=2..3 is the kind of client Buster
 * (Marmanis et al., TACAS 2023) measures (few threads,
 * several operations each). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 4
#endif
#ifndef OPS
#define OPS 1
#endif

struct node {
  int value;
  struct node *next;
};

struct node nodes[N * OPS];
struct node *_Atomic top;
int popped[N * OPS];

static void push(struct node *n) {
  struct node *t;
  do {
    t = atomic_load(&top);
    n->next = t;
  } while (!atomic_compare_exchange_strong(&top, &t, n));
}

static struct node *pop(void) {
  struct node *t, *next;
  do {
    t = atomic_load(&top);
    if (!t) return 0;
    next = t->next;
  } while (!atomic_compare_exchange_strong(&top, &t, next));
  return t;
}

static void *worker(void *arg) {
  long t = (long)arg;
  for (long k = 0; k < OPS; k++) {
    long i = t * OPS + k;
    nodes[i].value = (int)i + 1;
    push(&nodes[i]);
    struct node *n = pop();
    assert(n != 0);
    popped[i] = n->value;
  }
  return NULL;
}

TSOCHECK void treiber(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < N * OPS; i++)
    for (int j = i + 1; j < N * OPS; j++) assert(popped[i] != popped[j]);
}
