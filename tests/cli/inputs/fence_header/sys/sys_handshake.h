/* The handshake's side A in a header found through -isystem: a file the user
 * does not edit, so no fence edit is offered in it. */
#ifndef SYS_HANDSHAKE_H
#define SYS_HANDSHAKE_H

extern int flag_a, flag_b;

static inline int enter_a(void) {
  flag_a = 1;
  return flag_b == 0;
}

#endif
