/* A Dekker-style handshake whose first half lives in a header: each side
 * raises its flag, then reads the other's. Under TSO the raise can still be
 * in the store buffer when the read runs, so both sides can get in.
 * (Test input: fence synthesis must put one fence here, in this header. The
 * unbraced if puts it after the whole if statement, so the edited files are
 * really re-checked, not matched to the fenced program.) */
#ifndef HANDSHAKE_H
#define HANDSHAKE_H

extern int flag_a, flag_b;

static inline int enter_a(void) {
  if (!flag_a) flag_a = 1;
  return flag_b == 0;
}

#endif
