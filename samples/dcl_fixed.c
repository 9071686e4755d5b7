/* Double-checked initialisation of a lazily created object, fixed: the
 * object is published with a release store and read with an acquire load
 * (__atomic builtins), so its fields are visible before the pointer under
 * every model.
 *
 * expect: SC=verified TSO=verified PSO=verified
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
  struct config *p = __atomic_load_n(&instance, __ATOMIC_ACQUIRE);
  if (p == NULL) {
    pthread_mutex_lock(&init_lock);
    p = instance;
    if (p == NULL) {
      p = malloc(sizeof *p);
      p->version = 1;
      p->limit = 100;
      __atomic_store_n(&instance, p, __ATOMIC_RELEASE);
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
