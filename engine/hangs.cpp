#include "engine/hangs.h"

namespace tsocheck {

bool endsProgram(const Program& prog, uint32_t thread, uint32_t function, uint32_t pc) {
  if (function >= prog.functions.size()) return false;
  const std::vector<Instr>& code = prog.functions[function].code;
  if (pc < code.size() && code[pc].op == Op::Exit) return code[pc].sub == kExitProgram;
  return thread == 0;  // the harness returned (or ran off its end)
}

ExecutionEnd sectionEnd(const Program& prog, uint32_t owner, const Action& p) {
  ExecutionEnd end;
  if (p.kind == ActionKind::Limit || (p.kind == ActionKind::Blocked && p.value == 0)) return end;
  const bool spin = isAwait(p);
  const std::string what = p.kind == ActionKind::Lock   ? " waits for mutex " + addressName(prog, p.addr)
                           : p.kind == ActionKind::Join ? " waits to join T" + std::to_string(p.target)
                           : spin                       ? " spins forever"
                                                        : " " + waitText(p);
  end.kind = ExecutionEnd::Kind::Hang;
  end.error = spin ? ErrorKind::NonTermination : ErrorKind::Deadlock;
  end.message = "T" + std::to_string(owner) + what + " inside an atomic section, where no other thread can run";
  end.thread = owner;
  end.loc = p.loc;
  return end;
}

ExecutionEnd classifyEnd(const Program& prog, const std::vector<Waiter>& waiters, bool stale, bool programEnded) {
  ExecutionEnd end;
  if (stale || waiters.empty()) return end;  // blocked
  if (programEnded) {
    end.kind = ExecutionEnd::Kind::Complete;
    return end;
  }
  auto text = [&](const Waiter& w) {
    const std::string name = "T" + std::to_string(w.thread);
    switch (w.kind) {
      case Waiter::Kind::Mutex:
        return name + " waits for mutex " + addressName(prog, w.mutex) + " (" + prog.locString(w.loc) + ")";
      case Waiter::Kind::Wait: return name + " " + w.waits + " (" + prog.locString(w.loc) + ")";
      case Waiter::Kind::Spin: return name + " spins forever at " + prog.locString(w.loc);
      case Waiter::Kind::Join:
        return name + " waits to join T" + std::to_string(w.joins) + " (" + prog.locString(w.loc) + ")";
    }
    return name;
  };
  const Waiter* firstWaiter = nullptr;  // the first thread waiting on a mutex or a condition variable
  std::vector<const Waiter*> stuck, spinning;
  for (const Waiter& w : waiters) {
    if (w.kind == Waiter::Kind::Spin) {
      spinning.push_back(&w);
      continue;
    }
    if ((w.kind == Waiter::Kind::Mutex || w.kind == Waiter::Kind::Wait) && !firstWaiter) firstWaiter = &w;
    stuck.push_back(&w);
  }
  const bool deadlock = firstWaiter || spinning.empty();
  end.kind = ExecutionEnd::Kind::Hang;
  end.error = deadlock ? ErrorKind::Deadlock : ErrorKind::NonTermination;
  // Non-termination names the spinning threads first and points at the first.
  if (deadlock) stuck.insert(stuck.end(), spinning.begin(), spinning.end());
  else stuck.insert(stuck.begin(), spinning.begin(), spinning.end());
  end.message = deadlock ? "every live thread is blocked: "
                         : "no thread can make progress (spinning threads read values no other thread will change): ";
  for (size_t i = 0; i < stuck.size(); ++i) end.message += (i ? "; " : "") + text(*stuck[i]);
  const Waiter& at = deadlock && firstWaiter ? *firstWaiter : *stuck.front();
  end.thread = at.thread;
  end.loc = at.loc;
  return end;
}

}  // namespace tsocheck
