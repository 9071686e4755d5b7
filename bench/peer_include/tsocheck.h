/* tsocheck.h for the peer checkers (bench/peers.sh only): the bench programs
 * include <tsocheck.h>; GenMC and Nidhugg get this one instead. TSOCHECK marks
 * nothing here: the real header's attributes make GenMC misread a statically
 * initialised mutex as locked, and the peers are told the entry function on
 * their command lines. */
#ifndef TSOCHECK_PEER_H
#define TSOCHECK_PEER_H
#define TSOCHECK
#define TSOCHECK_WITH(options)
#define __tsocheck_assume(c) __VERIFIER_assume(c)
#endif
