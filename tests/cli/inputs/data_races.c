// Data races are warnings: `racy` verifies with two race warnings (plain
// message passing: both the data and the flag race); `synchronised` orders the
// same plain data through an atomic flag and a mutex and has none; `quiet`
// races but turns the check off in its annotation. `relaxed`: a relaxed
// flag does not order the data (one race); `release_sequence`: a relaxed
// store after a release store of the same thread still orders it (none).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

int data, flag;
int data2;
atomic_int ready;
int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  data = 1;
  flag = 1;
  return arg;
}

static void *reader(void *arg) {
  if (flag) {
    int v = data;
    (void)v;
  }
  return arg;
}

TSOCHECK void racy(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void *publisher(void *arg) {
  data2 = 7;
  atomic_store(&ready, 1);
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  return arg;
}

static void *consumer(void *arg) {
  if (atomic_load(&ready)) assert(data2 == 7);
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  return arg;
}

TSOCHECK void synchronised(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, publisher, NULL);
  pthread_create(&b, NULL, consumer, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);  // after both joins: ordered
}

TSOCHECK_WITH("races=off") void quiet(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

int data3, data4;
atomic_int rflag, sflag;

static void *relaxed_writer(void *arg) {
  data3 = 1;
  atomic_store_explicit(&rflag, 1, memory_order_relaxed);
  return arg;
}

static void *relaxed_reader(void *arg) {
  if (atomic_load_explicit(&rflag, memory_order_acquire)) {
    int v = data3;
    (void)v;
  }
  return arg;
}

TSOCHECK void relaxed(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, relaxed_writer, NULL);
  pthread_create(&b, NULL, relaxed_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void *sequence_writer(void *arg) {
  data4 = 1;
  atomic_store_explicit(&sflag, 1, memory_order_release);
  atomic_store_explicit(&sflag, 2, memory_order_relaxed);
  return arg;
}

static void *sequence_reader(void *arg) {
  if (atomic_load_explicit(&sflag, memory_order_acquire) == 2) {
    int v = data4;
    (void)v;
  }
  return arg;
}

TSOCHECK void release_sequence(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, sequence_writer, NULL);
  pthread_create(&b, NULL, sequence_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
