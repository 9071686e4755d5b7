/* Data races under RC11, judged by RC11's own happens-before:
 * `release_sequence`: a relaxed store after the release store ends its
 * release sequence (C++20), so the reader that sees it reads data1 racily;
 * `fence_in_caller`: a release fence orders the relaxed store a called
 * function makes (no race); `fence_after_load`: an acquire fence after a
 * relaxed load made by a called function orders what follows (no race);
 * `fence_before_load`: an acquire fence before the relaxed load orders
 * nothing the load reads (data4 races). */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

int data1, data2, data3, data4;
atomic_int flag1, flag2, flag3, flag4;

static void *sequence_writer(void *arg) {
  data1 = 1;
  atomic_store_explicit(&flag1, 1, memory_order_release);
  atomic_store_explicit(&flag1, 2, memory_order_relaxed);
  return arg;
}

static void *sequence_reader(void *arg) {
  if (atomic_load_explicit(&flag1, memory_order_acquire) == 2) {
    int v = data1;
    (void)v;
  }
  return arg;
}

TSOCHECK_WITH("model=rc11") void release_sequence(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, sequence_writer, NULL);
  pthread_create(&b, NULL, sequence_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void publish(void) { atomic_store_explicit(&flag2, 1, memory_order_relaxed); }

static void *fenced_writer(void *arg) {
  data2 = 1;
  atomic_thread_fence(memory_order_release);
  publish();
  return arg;
}

static void *acquiring_reader(void *arg) {
  if (atomic_load_explicit(&flag2, memory_order_acquire)) {
    int v = data2;
    (void)v;
  }
  return arg;
}

TSOCHECK_WITH("model=rc11") void fence_in_caller(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, fenced_writer, NULL);
  pthread_create(&b, NULL, acquiring_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void *releasing_writer(void *arg) {
  if (arg) {
    data4 = 1;
    atomic_store_explicit(&flag4, 1, memory_order_release);
  } else {
    data3 = 1;
    atomic_store_explicit(&flag3, 1, memory_order_release);
  }
  return arg;
}

static int peek(void) { return atomic_load_explicit(&flag3, memory_order_relaxed); }

static void *fenced_reader(void *arg) {
  int f = peek();
  atomic_thread_fence(memory_order_acquire);
  if (f) {
    int v = data3;
    (void)v;
  }
  return arg;
}

TSOCHECK_WITH("model=rc11") void fence_after_load(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, releasing_writer, NULL);
  pthread_create(&b, NULL, fenced_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void *early_fence_reader(void *arg) {
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&flag4, memory_order_relaxed)) {
    int v = data4;
    (void)v;
  }
  return arg;
}

TSOCHECK_WITH("model=rc11") void fence_before_load(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, releasing_writer, (void *)1);
  pthread_create(&b, NULL, early_fence_reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
