/* Bench program: the Michael–Scott two-lock queue (a head lock and a tail
 * lock, a dummy node); E threads enqueue one value each, D threads dequeue
 * once each. A dequeued value is one that was enqueued, and no value is
 * dequeued twice. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#ifndef E
#define E 3
#endif
#ifndef D
#define D 2
#endif

struct node {
  int value;
  struct node *volatile next;
};

struct node pool[E + 1];
struct node *head, *tail;
pthread_mutex_t hlock, tlock;
int got[D];

static void *enqueuer(void *arg) {
  long i = (long)arg;
  struct node *n = &pool[i + 1];
  n->value = (int)i + 1;
  n->next = 0;
  pthread_mutex_lock(&tlock);
  tail->next = n;
  tail = n;
  pthread_mutex_unlock(&tlock);
  return NULL;
}

static void *dequeuer(void *arg) {
  long i = (long)arg;
  int v = 0;
  pthread_mutex_lock(&hlock);
  struct node *first = head->next;
  if (first) {
    v = first->value;
    head = first;
  }
  pthread_mutex_unlock(&hlock);
  got[i] = v;
  return NULL;
}

TSOCHECK void twolock_queue(void) {
  pthread_t te[E], td[D];
  head = tail = &pool[0];
  pthread_mutex_init(&hlock, 0);
  pthread_mutex_init(&tlock, 0);
  for (long i = 0; i < E; i++) pthread_create(&te[i], NULL, enqueuer, (void *)i);
  for (long i = 0; i < D; i++) pthread_create(&td[i], NULL, dequeuer, (void *)i);
  for (int i = 0; i < E; i++) pthread_join(te[i], NULL);
  for (int i = 0; i < D; i++) pthread_join(td[i], NULL);
  for (int i = 0; i < D; i++) {
    assert(got[i] >= 0 && got[i] <= E);
    for (int j = i + 1; j < D; j++) assert(got[i] == 0 || got[i] != got[j]);
  }
}
