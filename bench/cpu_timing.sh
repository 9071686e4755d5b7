# CPU-time helpers of the side-by-side benchmarks (bench/peers.sh,
# bench/rc11_peers.sh): sourced, not run. Each run's output is kept in
# /tmp/tsocheck-peers-out.$$ until the next one (peer_cpu removes it).
# Runs a command again until it has used REPEAT_CPU seconds of CPU (default
# 0.5) or 20 times, and prints "mean-CPU-seconds peak-KB exit-status" (the
# status of the last run). One run of a check that takes 0.03 s says little at
# /usr/bin/time's 10 ms resolution; the mean of many does.
repeat_cpu() {
  local total=0 n=0 peak=0 u s m x
  while :; do
    /usr/bin/time -f "%U %S %M %x" -o /tmp/tsocheck-peers.$$ "$@" >/tmp/tsocheck-peers-out.$$ 2>&1 || true
    read -r u s m x < <(tail -1 /tmp/tsocheck-peers.$$)
    n=$((n + 1))
    read -r total peak < <(python3 -c "print($total + $u + $s, max($peak, $m))")
    [ "$x" = 124 ] && break
    python3 -c "import sys; sys.exit(0 if $total >= ${REPEAT_CPU:-0.5} or $n >= 20 else 1)" && break
  done
  rm -f /tmp/tsocheck-peers.$$  # (the last run's output stays in tsocheck-peers-out.$$)
  python3 -c "print('%.3f %d %s' % ($total / $n, $peak, '$x'))"
}
cpu() {  # command... -> prints "mean-CPU-seconds peakKB"
  local secs peak x
  read -r secs peak x < <(repeat_cpu "$@")
  echo "$secs $peak"
}
# A peer's mean CPU seconds, or "" when it ran into the time limit (PEER_TIMEOUT,
# default 120 s: Nidhugg's default search takes hours on lastzero(15)).
# (The exit status says so, not the CPU time: when the limit kills a wrapper
# such as nidhuggc, the checker it started is never waited for, and its CPU
# time is not counted.)
peer_cpu() {
  local secs peak x
  # (Address space capped at PEER_MEMORY_KB, default 8 GiB: Nidhugg takes
  # 15 GB and more on szymanski before it fails.)
  read -r secs peak x < <(repeat_cpu timeout "${PEER_TIMEOUT:-120}" \
    bash -c 'ulimit -v "$0"; exec "$@"' "${PEER_MEMORY_KB:-8388608}" "$@")
  if [ "$x" = 124 ]; then echo ""
  # The peer failed instead of answering (its own crash, memory, a program it
  # refuses): no time to compare.
  elif grep -qE 'Nidhuggc Error|LLVM ERROR|bad_alloc|treated as an error' /tmp/tsocheck-peers-out.$$; then echo fail
  # The peer reports a violation on a row tsocheck verifies (PEER_SAFE=1: a
  # label without !): it stopped early on another question, no time to
  # compare. (Nidhugg's PSO keeps a C11 release store unordered with the
  # plain stores before it, e.g. parker(4)f's data[v] before published.)
  elif [ "${PEER_SAFE:-0}" = 1 ] && grep -qE 'Verification unsuccessful|Error: Assertion violation|Error detected' /tmp/tsocheck-peers-out.$$; then
    echo viol
  else echo "$secs"; fi
  rm -f /tmp/tsocheck-peers-out.$$
}
ratio() {  # tsocheck seconds, peer seconds ("" = timed out, fail, viol) -> "0.42", "<0.02", "fail" or "viol"
  if [ "$2" = fail ] || [ "$2" = viol ]; then echo "$2"
  elif [ -z "$2" ]; then python3 -c "print('<%.3f' % ($1 / ${PEER_TIMEOUT:-120}))"
  else python3 -c "print('%.2f' % ($1 / max($2, 0.001)))"; fi
}

