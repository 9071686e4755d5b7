/* Double-checked initialisation of a lazily created object.
 *
 * Bug: the object is published with a plain store. x86-TSO keeps the
 * initialising stores before it, but under SPARC-PSO `instance = p` may
 * become visible first, and a thread that skips the lock sees a published
 * object whose fields are still zero.
 *
 * expect: SC=verified TSO=verified PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <tsocheck.h>

struct config {
  int version;
  int limit;
};

struct config *volatile instance;
pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static struct config *get_config(void) {
  struct config *p = instance;
  if (p == NULL) {
    pthread_mutex_lock(&init_lock);
    p = instance;
    if (p == NULL) {
      p = malloc(sizeof *p);
      p->version = 1;
      p->limit = 100;
      instance = p; /* BUG: needs a release store */
    }
    pthread_mutex_unlock(&init_lock);
  }
  return p;
}

static void *user(void *arg) {
  struct config *c = get_config();
  assert(c->version == 1 && c->limit == 100);
  return NULL;
}

TSOCHECK void double_checked_init(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, user, NULL);
  pthread_create(&t1, NULL, user, NULL);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  free(instance);
}
