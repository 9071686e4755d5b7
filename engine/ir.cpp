#include "engine/ir.h"

#include <algorithm>

namespace tsocheck {

uint32_t Program::intern(const std::string& s) {
  if (s.empty()) return 0;
  for (size_t i = 1; i < strings.size(); ++i)
    if (strings[i] == s) return uint32_t(i);
  strings.push_back(s);
  return uint32_t(strings.size() - 1);
}

uint32_t Program::fileIndex(const std::string& path) {
  for (size_t i = 1; i < files.size(); ++i)
    if (files[i] == path) return uint32_t(i);
  files.push_back(path);
  return uint32_t(files.size() - 1);
}

const Global* Program::globalAt(Addr a) const {
  // Globals are laid out at increasing addresses.
  auto it = std::upper_bound(globals.begin(), globals.end(), a,
                             [](Addr x, const Global& g) { return x < g.addr; });
  if (it == globals.begin()) return nullptr;
  --it;
  if (a >= it->addr && a < it->addr + std::max<uint32_t>(it->size, 1)) return &*it;
  return nullptr;
}

const ThreadLocal* Program::threadLocalAt(uint64_t offset, bool isPrivate) const {
  for (const ThreadLocal& v : threadLocals)
    if (v.isPrivate == isPrivate && offset >= v.offset && offset < v.offset + std::max<uint32_t>(v.size, 1)) return &v;
  return nullptr;
}

std::string Program::locString(const SourceLoc& l) const {
  std::string f = l.file < files.size() ? files[l.file] : std::string();
  if (f.empty()) f = "<unknown>";
  return f + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

std::string addressName(const Program& p, Addr a) {
  if (a < layout::kNullLimit) return a == 0 ? "NULL" : "NULL+" + std::to_string(a);
  if (const Global* g = p.globalAt(a)) {
    uint64_t off = a - g->addr;
    if (g->elemSize && g->elemSize < g->size && off % g->elemSize == 0)
      return g->name + "[" + std::to_string(off / g->elemSize) + "]";
    if (off == 0) return g->name;
    return g->name + "+" + std::to_string(off);
  }
  // A thread's copy of a thread-local variable: name@T<thread>.
  auto threadLocal = [&](const ThreadLocal* v, uint64_t tid, uint64_t off) {
    std::string at = "@T" + std::to_string(tid);
    off -= v->offset;
    if (v->elemSize && v->elemSize < v->size && off % v->elemSize == 0)
      return v->name + "[" + std::to_string(off / v->elemSize) + "]" + at;
    return v->name + at + (off ? "+" + std::to_string(off) : "");
  };
  if (a >= layout::kTlsBase && a < layout::kStackBase) {
    const uint64_t tid = (a - layout::kTlsBase) / layout::kTlsStride, off = (a - layout::kTlsBase) % layout::kTlsStride;
    if (const ThreadLocal* v = p.threadLocalAt(off, false)) return threadLocal(v, tid, off);
  }
  if (a >= layout::kPrivateBase && a < layout::kHeapBase) {
    const uint64_t tid = (a - layout::kPrivateBase) / layout::kThreadStride,
                   off = (a - layout::kPrivateBase) % layout::kThreadStride;
    if (off < p.tlsPrivateSize)
      if (const ThreadLocal* v = p.threadLocalAt(off, true)) return threadLocal(v, tid, off);
  }
  auto region = [&](Addr base, const char* what) {
    uint64_t rel = a - base;
    uint64_t tid = rel / layout::kThreadStride;
    uint64_t off = rel % layout::kThreadStride;
    return std::string(what) + std::to_string(tid) + "+" + std::to_string(off);
  };
  if (a >= layout::kHeapBase) return region(layout::kHeapBase, "heap@T");
  if (a >= layout::kPrivateBase) return region(layout::kPrivateBase, "local@T");
  if (a >= layout::kStackBase) return region(layout::kStackBase, "stack@T");
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

bool usesOp(const Program& p, Op op) {
  for (const Function& f : p.functions)
    for (const Instr& in : f.code)
      if (in.op == op) return true;
  return false;
}

std::vector<std::vector<uint8_t>> loadsBeforeAwaits(const Program& p) {
  // Instructions a thread runs through without a visible action or a call.
  auto quiet = [](Op op) {
    switch (op) {
      case Op::Const: case Op::Mov: case Op::Bin: case Op::Cmp: case Op::Ext: case Op::Select:
      case Op::Jmp: case Op::Br: case Op::FuncAddr: case Op::GlobalAddr: case Op::TlsAddr:
      case Op::Self: case Op::Assert: case Op::ReadCount: case Op::EffectCount: case Op::FBin:
      case Op::FUn: case Op::FCmp: case Op::FConv: case Op::Nop:
        return true;
      default:
        return false;
    }
  };
  std::vector<std::vector<uint8_t>> out(p.functions.size());
  std::vector<uint8_t> reach;  // reach[k]: from instruction k an await comes with nothing visible before it
  for (size_t fi = 0; fi < p.functions.size(); ++fi) {
    const auto& code = p.functions[fi].code;
    const size_t n = code.size();
    auto at = [&](int64_t k) { return k >= 0 && size_t(k) < n && reach[size_t(k)]; };
    reach.assign(n, 0);
    // Marks only grow: passes until none changes (one per loop nesting, in practice).
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = n; k-- > 0;) {
        if (reach[k]) continue;
        const Instr& in = code[k];
        const bool r = (in.op == Op::Assume && in.sub == 1) ||
                       (quiet(in.op) && (in.op == Op::Jmp  ? at(in.imm)
                                         : in.op == Op::Br ? at(in.imm) || at(in.imm2)
                                                           : at(int64_t(k) + 1)));
        if (r) reach[k] = 1, changed = true;
      }
    }
    out[fi].assign(n, 0);
    for (size_t i = 0; i < n; ++i) out[fi][i] = code[i].op == Op::Load && at(int64_t(i) + 1);
  }
  return out;
}

const char* opName(Op op) {
  switch (op) {
    case Op::Const: return "const";
    case Op::Mov: return "mov";
    case Op::Bin: return "bin";
    case Op::Cmp: return "cmp";
    case Op::Ext: return "ext";
    case Op::Select: return "select";
    case Op::Jmp: return "jmp";
    case Op::Br: return "br";
    case Op::Call: return "call";
    case Op::CallInd: return "call*";
    case Op::FuncAddr: return "funcaddr";
    case Op::GlobalAddr: return "globaladdr";
    case Op::TlsAddr: return "tlsaddr";
    case Op::Ret: return "ret";
    case Op::Load: return "load";
    case Op::Store: return "store";
    case Op::Rmw: return "rmw";
    case Op::Fence: return "fence";
    case Op::Spawn: return "spawn";
    case Op::SpawnInd: return "spawn*";
    case Op::Join: return "join";
    case Op::Exit: return "exit";
    case Op::Self: return "self";
    case Op::ReadCount: return "readcount";
    case Op::EffectCount: return "effectcount";
    case Op::Nondet: return "nondet";
    case Op::AtomicBegin: return "atomic_begin";
    case Op::AtomicEnd: return "atomic_end";
    case Op::Lock: return "lock";
    case Op::TryLock: return "trylock";
    case Op::Unlock: return "unlock";
    case Op::Assert: return "assert";
    case Op::Assume: return "assume";
    case Op::Fail: return "fail";
    case Op::Cut: return "cut";
    case Op::Malloc: return "malloc";
    case Op::Free: return "free";
    case Op::BlockSize: return "blocksize";
    case Op::Alloca: return "alloca";
    case Op::FBin: return "fbin";
    case Op::FUn: return "fun";
    case Op::FCmp: return "fcmp";
    case Op::FConv: return "fconv";
    case Op::Nop: return "nop";
  }
  return "?";
}

}  // namespace tsocheck
