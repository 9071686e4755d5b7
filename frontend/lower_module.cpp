// Module lowering: globals and their initial bytes, constants, the check
// functions, reachability, error ownership (lowering.h).
#include "frontend/lowering.h"

#include <algorithm>

namespace tsocheck::frontend::lowering {

// Debug-info file names may be relative to the compilation directory. Keep
// them as they are when that directory is ours (they then read the way the
// user named the file); otherwise make them absolute.
std::string debugPath(llvm::StringRef file, llvm::StringRef dir) {
  if (file.empty() || llvm::sys::path::is_absolute(file) || dir.empty()) return file.str();
  llvm::SmallString<256> cwd;
  if (!llvm::sys::fs::current_path(cwd) && cwd == dir) return file.str();
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p.str());
}

bool isStdStream(const llvm::GlobalVariable* g) {
  llvm::StringRef n = g->getName();
  return g->isDeclaration() && (n == "stdin" || n == "stdout" || n == "stderr");
}

std::string typeName(llvm::Type* t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return os.str();
}

// Base object of a pointer through casts and GEPs (any offsets).
const llvm::Value* baseObject(const llvm::Value* v) {
  for (int i = 0; i < 64; ++i) {
    if (auto* g = dyn_cast<llvm::GEPOperator>(v)) v = g->getPointerOperand();
    else if (auto* c = dyn_cast<llvm::BitCastOperator>(v)) v = c->getOperand(0);
    else if (auto* a = dyn_cast<llvm::AddrSpaceCastOperator>(v)) v = a->getOperand(0);
    else break;
  }
  return v;
}

// "x.f[2]" for byte offset `off` inside a variable of debug type `t`.
std::string diPath(const llvm::DIType* t, uint64_t off, int depth) {
  if (!t || depth > 16) return "";
  if (auto* d = dyn_cast<llvm::DIDerivedType>(t)) {
    auto tag = d->getTag();
    if (tag == llvm::dwarf::DW_TAG_typedef || tag == llvm::dwarf::DW_TAG_const_type ||
        tag == llvm::dwarf::DW_TAG_volatile_type || tag == llvm::dwarf::DW_TAG_atomic_type ||
        tag == llvm::dwarf::DW_TAG_restrict_type)
      return diPath(d->getBaseType(), off, depth + 1);
    return off == 0 ? "" : "+" + std::to_string(off);
  }
  auto* c = dyn_cast<llvm::DICompositeType>(t);
  if (!c) return off == 0 ? "" : "+" + std::to_string(off);
  if (c->getTag() == llvm::dwarf::DW_TAG_array_type) {
    const llvm::DIType* et = c->getBaseType();
    // Strip qualifiers to get the element size.
    uint64_t esz = 0;
    for (const llvm::DIType* x = et; x; ) {
      esz = x->getSizeInBits() / 8;
      if (esz) break;
      auto* dd = dyn_cast<llvm::DIDerivedType>(x);
      x = dd ? dd->getBaseType() : nullptr;
    }
    if (!esz) return "";
    // Multi-dimensional arrays: one DISubrange per dimension.
    std::vector<uint64_t> dims;
    for (auto* e : c->getElements())
      if (auto* sr = dyn_cast_or_null<llvm::DISubrange>(e)) {
        auto cnt = sr->getCount();
        if (auto* ci = dyn_cast_if_present<llvm::ConstantInt*>(cnt)) dims.push_back(ci->getZExtValue());
        else dims.push_back(0);
      }
    if (dims.empty()) dims.push_back(0);
    std::vector<uint64_t> stride(dims.size(), esz);
    for (size_t i = dims.size() - 1; i > 0; --i) stride[i - 1] = stride[i] * std::max<uint64_t>(dims[i], 1);
    std::string s;
    uint64_t rest = off;
    for (size_t i = 0; i < dims.size(); ++i) {
      s += "[" + std::to_string(rest / stride[i]) + "]";
      rest %= stride[i];
    }
    return s + diPath(et, rest, depth + 1);
  }
  if (c->getTag() == llvm::dwarf::DW_TAG_structure_type || c->getTag() == llvm::dwarf::DW_TAG_union_type) {
    for (auto* e : c->getElements()) {
      auto* m = dyn_cast_or_null<llvm::DIDerivedType>(e);
      if (!m || m->getTag() != llvm::dwarf::DW_TAG_member) continue;
      uint64_t mo = m->getOffsetInBits() / 8, ms = m->getSizeInBits() / 8;
      if (off >= mo && off < mo + std::max<uint64_t>(ms, 1))
        return "." + m->getName().str() + diPath(m->getBaseType(), off - mo, depth + 1);
    }
  }
  return off == 0 ? "" : "+" + std::to_string(off);
}



// ---------------------------------------------------------------------------
// ModuleLowering

void ModuleLowering::diag(const std::string& severity, const std::string& file, uint32_t line, uint32_t col,
                          const std::string& msg) {
  Diagnostic d;
  d.file = file;
  d.line = line;
  d.column = col;
  d.severity = severity;
  d.message = msg;
  res_.diagnostics.push_back(std::move(d));
}

void ModuleLowering::error(const SourceLoc& loc, const std::string& msg) {
  std::string file = loc.file < p_.files.size() ? p_.files[loc.file] : std::string();
  if (errorOwner_) ownedErrors_.push_back({errorOwner_, Diagnostic{file, loc.line, loc.column, "error", msg}});
  else errors_ = true;
  std::string key = file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ":" + msg;
  if (!seenErrors_.insert(key).second) return;
  diag("error", file, loc.line, loc.column, msg);
}

std::string ModuleLowering::noDefinition() const {
  const LoweredModule& m = res_.module;
  std::vector<std::string> files = m.units;
  for (const std::string& f : m.searched)
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  if (files.empty()) return "no definition in this file";
  constexpr size_t kNamed = 8;
  std::string s = "no definition in this file or in the " + std::to_string(files.size()) +
                  (files.size() == 1 ? " other file" : " other files") + " searched: ";
  for (size_t i = 0; i < files.size() && i < kNamed; ++i) s += (i ? ", " : "") + files[i];
  if (files.size() > kNamed) s += ", and " + std::to_string(files.size() - kNamed) + " more";
  if (m.searchLeftOut)
    s += "; " + std::to_string(m.searchLeftOut) + " more files of the compile database were not searched (at most " +
         std::to_string(kMaxCandidateUnits) + " are)";
  return s;
}

SourceLoc ModuleLowering::locOfFunction(const llvm::Function* f) {
  SourceLoc l;
  if (f && f == harness_) f = harnessOf_;  // the harness is where main is
  if (!f) return l;
  if (auto* sp = f->getSubprogram()) {
    l.file = p_.fileIndex(debugPath(sp->getFilename(), sp->getDirectory()));
    l.line = sp->getLine();
    l.column = 1;
  }
  auto it = decls_.find(f->getName().str());
  if (it != decls_.end() && it->second.line) {
    l.file = p_.fileIndex(it->second.file);
    l.line = it->second.line;
    l.column = it->second.column;
  }
  return l;
}

SourceLoc ModuleLowering::locOf(const llvm::Instruction* I, const llvm::Function* f) {
  if (I) {
    const llvm::DebugLoc& d = I->getDebugLoc();
    if (d && d.getLine()) {
      SourceLoc l;
      l.file = p_.fileIndex(debugPath(d->getFilename(), d->getDirectory()));
      l.line = d.getLine();
      l.column = d.getCol();
      return l;
    }
  }
  return locOfFunction(f);
}

const llvm::GlobalVariable* ModuleLowering::resolveGlobal(const llvm::Value* v) {
  if (auto* a = dyn_cast<llvm::GlobalAlias>(v)) v = a->getAliaseeObject();
  return dyn_cast_or_null<llvm::GlobalVariable>(v);
}

bool ModuleLowering::evalConst(const llvm::Constant* c, uint64_t& v, std::string& err) {
  if (auto* ci = dyn_cast<llvm::ConstantInt>(c)) {
    if (ci->getBitWidth() > 64) {
      err = "integers wider than 64 bits are not supported";
      return false;
    }
    v = ci->getZExtValue();
    return true;
  }
  if (isa<llvm::ConstantPointerNull>(c) || isa<llvm::UndefValue>(c) || isa<llvm::ConstantAggregateZero>(c)) {
    v = 0;
    return true;
  }
  if (auto* cf = dyn_cast<llvm::ConstantFP>(c)) {  // float/double: the IEEE bit pattern
    if (!fpSize(cf->getType())) {
      err = "constant of " + fpTypeRefusal(cf->getType());
      return false;
    }
    v = cf->getValueAPF().bitcastToAPInt().getZExtValue();
    return true;
  }
  if (auto* a = dyn_cast<llvm::GlobalAlias>(c)) return evalConst(a->getAliasee(), v, err);
  if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
    auto it = globalIndex_.find(g);
    if (it == globalIndex_.end()) {
      err = "global '" + g->getName().str() + "' is not laid out";
      return false;
    }
    v = p_.globals[it->second].addr;
    return true;
  }
  if (auto* fn = dyn_cast<llvm::Function>(c)) {
    auto it = funcIndex_.find(fn);
    // A function never reached from a check: its address is never used to call.
    v = it == funcIndex_.end() ? 0 : layout::kFunctionBase + Value(it->second) * 16;
    return true;
  }
  if (auto* ce = dyn_cast<llvm::ConstantExpr>(c)) {
    if (auto* gep = dyn_cast<llvm::GEPOperator>(ce)) {
      llvm::APInt off(64, 0);
      if (!gep->accumulateConstantOffset(dl_, off)) {
        err = "unsupported constant address expression";
        return false;
      }
      uint64_t base = 0;
      if (!evalConst(cast<llvm::Constant>(gep->getPointerOperand()), base, err)) return false;
      v = base + off.getZExtValue();
      return true;
    }
    unsigned bits = ce->getType()->isIntegerTy() ? ce->getType()->getIntegerBitWidth() : 64;
    auto mask = [&](uint64_t x) { return bits >= 64 ? x : (x & ((uint64_t(1) << bits) - 1)); };
    switch (ce->getOpcode()) {
      case llvm::Instruction::PtrToInt:
      case llvm::Instruction::IntToPtr:
      case llvm::Instruction::BitCast:
      case llvm::Instruction::AddrSpaceCast:
      case llvm::Instruction::Trunc:
      case llvm::Instruction::ZExt: {
        uint64_t x = 0;
        if (!evalConst(ce->getOperand(0), x, err)) return false;
        v = mask(x);
        return true;
      }
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub:
      case llvm::Instruction::Mul: {
        uint64_t x = 0, y = 0;
        if (!evalConst(ce->getOperand(0), x, err) || !evalConst(ce->getOperand(1), y, err)) return false;
        uint64_t r = ce->getOpcode() == llvm::Instruction::Add   ? x + y
                     : ce->getOpcode() == llvm::Instruction::Sub ? x - y
                                                                 : x * y;
        v = mask(r);
        return true;
      }
      default:
        break;
    }
    err = std::string("unsupported constant expression (") + ce->getOpcodeName() + ")";
    return false;
  }
  if (isa<llvm::BlockAddress>(c)) {
    err = "label addresses (computed goto) are not supported";
    return false;
  }
  err = "unsupported constant of type " + typeName(c->getType());
  return false;
}

bool ModuleLowering::writeConst(const llvm::Constant* c, uint8_t* buf, uint64_t size, std::string& err) {
  llvm::Type* t = c->getType();
  if (isa<llvm::ConstantAggregateZero>(c) || isa<llvm::ConstantPointerNull>(c) || isa<llvm::UndefValue>(c))
    return true;  // buffers start zeroed
  auto putInt = [&](const llvm::APInt& x) {
    uint64_t n = std::min<uint64_t>(size, dl_.getTypeStoreSize(t));
    llvm::APInt w = x.zextOrTrunc(unsigned(std::max<uint64_t>(n, 1) * 8));
    for (uint64_t i = 0; i < n; ++i) buf[i] = uint8_t(w.extractBitsAsZExtValue(8, unsigned(i * 8)));
  };
  if (auto* ci = dyn_cast<llvm::ConstantInt>(c)) {
    putInt(ci->getValue());
    return true;
  }
  if (auto* cf = dyn_cast<llvm::ConstantFP>(c)) {  // the bytes (long double too: its loads are refused)
    putInt(cf->getValueAPF().bitcastToAPInt());
    return true;
  }
  if (auto* cds = dyn_cast<llvm::ConstantDataSequential>(c)) {
    uint64_t esz = dl_.getTypeAllocSize(cds->getElementType());
    for (unsigned i = 0; i < cds->getNumElements(); ++i)
      if ((i + 1) * esz <= size && !writeConst(cds->getElementAsConstant(i), buf + i * esz, esz, err)) return false;
    return true;
  }
  if (auto* ca = dyn_cast<llvm::ConstantArray>(c)) {
    uint64_t esz = dl_.getTypeAllocSize(ca->getType()->getElementType());
    for (unsigned i = 0; i < ca->getNumOperands(); ++i)
      if ((i + 1) * esz <= size && !writeConst(ca->getOperand(i), buf + i * esz, esz, err)) return false;
    return true;
  }
  if (auto* cs = dyn_cast<llvm::ConstantStruct>(c)) {
    const llvm::StructLayout* sl = dl_.getStructLayout(cs->getType());
    for (unsigned i = 0; i < cs->getNumOperands(); ++i) {
      uint64_t off = sl->getElementOffset(i);
      uint64_t esz = dl_.getTypeAllocSize(cs->getOperand(i)->getType());
      if (off + esz <= size && !writeConst(cs->getOperand(i), buf + off, esz, err)) return false;
    }
    return true;
  }
  if (isa<llvm::ConstantVector>(c)) {
    err = "vector constants are not supported";
    return false;
  }
  uint64_t v = 0;
  if (!evalConst(c, v, err)) return false;
  uint64_t n = std::min<uint64_t>({size, dl_.getTypeStoreSize(t), 8});
  for (uint64_t i = 0; i < n; ++i) buf[i] = uint8_t(v >> (8 * i));
  return true;
}

bool ModuleLowering::constantBytes(const llvm::GlobalVariable* g, uint64_t off, unsigned size, uint64_t& v) {
  if (!g->isConstant() || !g->hasDefinitiveInitializer()) return false;
  auto it = globalIndex_.find(g);
  if (it == globalIndex_.end()) return false;
  const Global& gl = p_.globals[it->second];
  if (off + size > gl.size) return false;
  v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t(off + i < gl.init.size() ? gl.init[off + i] : 0) << (8 * i);
  return true;
}

bool ModuleLowering::readOnly(const llvm::Function* f) {
  auto it = readOnly_.find(f);
  if (it != readOnly_.end()) return it->second == 1;
  readOnly_[f] = 0;  // recursion: not read-only
  if (f->isDeclaration()) return false;
  auto local = [&](const llvm::Value* ptr) {
    auto* a = dyn_cast<llvm::AllocaInst>(baseObject(ptr));
    return a && a->getFunction() == f;
  };
  for (const llvm::BasicBlock& bb : *f)
    for (const llvm::Instruction& I : bb) {
      if (auto* st = dyn_cast<llvm::StoreInst>(&I)) {
        if (!local(st->getPointerOperand())) return false;
      } else if (auto* rmw = dyn_cast<llvm::AtomicRMWInst>(&I)) {
        if (!local(rmw->getPointerOperand())) return false;
      } else if (auto* cx = dyn_cast<llvm::AtomicCmpXchgInst>(&I)) {
        if (!local(cx->getPointerOperand())) return false;
      } else if (auto* call = dyn_cast<llvm::CallInst>(&I)) {
        if (auto* ia = dyn_cast<llvm::InlineAsm>(call->getCalledOperand())) {
          if (classifyAsm(ia) == AsmKind::Unsupported) return false;
          continue;
        }
        const llvm::Function* callee = call->getCalledFunction();
        if (!callee) return false;
        if (callee->isIntrinsic()) {
          if (isIgnorableIntrinsic(callee->getIntrinsicID())) continue;
          if (auto* mi = dyn_cast<llvm::MemIntrinsic>(call); mi && local(mi->getRawDest())) continue;
          auto id = callee->getIntrinsicID();
          if (id == llvm::Intrinsic::expect || id == llvm::Intrinsic::expect_with_probability) continue;
          if (isFloatIntrinsic(id)) continue;
          return false;
        }
        if (callee->isDeclaration()) {
          switch (classifyExternal(callee->getName())) {
            case Ext::Ignored:
            case Ext::PthreadSelf:
            case Ext::PthreadEqual:
            case Ext::AssertFail:
            case Ext::Abort:
            case Ext::VerifierError:
            case Ext::Assume:
              continue;
            default:
              return false;
          }
        }
        if (!readOnly(callee)) return false;
      }
    }
  readOnly_[f] = 1;
  return true;
}

void ModuleLowering::findChecks(std::vector<std::pair<llvm::Function*, std::string>>& checks) {
  llvm::GlobalVariable* ann = m_.getGlobalVariable("llvm.global.annotations");
  if (!ann || !ann->hasInitializer()) return;
  auto* arr = dyn_cast<llvm::ConstantArray>(ann->getInitializer());
  if (!arr) return;
  for (unsigned i = 0; i < arr->getNumOperands(); ++i) {
    auto* entry = dyn_cast<llvm::ConstantStruct>(arr->getOperand(i));
    if (!entry || entry->getNumOperands() < 2) continue;
    auto* fn = dyn_cast<llvm::Function>(entry->getOperand(0)->stripPointerCasts());
    auto* strg = dyn_cast<llvm::GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
    if (!fn || !strg || !strg->hasInitializer()) continue;
    auto* data = dyn_cast<llvm::ConstantDataArray>(strg->getInitializer());
    if (!data || !data->isString()) continue;
    std::string text = data->getAsCString().str();
    if (text.rfind("tsocheck", 0) != 0) continue;
    std::string rest = text.substr(8);
    if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest[0]))) continue;  // "tsocheckfoo"
    size_t b = rest.find_first_not_of(" \t\n");
    size_t e = rest.find_last_not_of(" \t\n");
    rest = b == std::string::npos ? "" : rest.substr(b, e - b + 1);
    checks.push_back({fn, rest});
  }
}

void ModuleLowering::collectReachable(const std::vector<llvm::Function*>& roots, std::vector<llvm::Function*>& out,
                                      std::unordered_set<const llvm::Value*>* reached) {
  std::unordered_set<const llvm::Function*> seen;
  std::unordered_set<const llvm::Constant*> seenConst;
  std::vector<llvm::Function*> work;
  auto addFn = [&](llvm::Function* f) {
    if (f->isDeclaration() || f->isIntrinsic()) return;
    if (seen.insert(f).second) work.push_back(f);
  };
  std::function<void(const llvm::Constant*)> walkConst = [&](const llvm::Constant* c) {
    if (!seenConst.insert(c).second) return;
    if (auto* f = dyn_cast<llvm::Function>(c)) {
      addFn(const_cast<llvm::Function*>(f));
      return;
    }
    if (auto* a = dyn_cast<llvm::GlobalAlias>(c)) {
      walkConst(a->getAliasee());
      return;
    }
    if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
      usedGlobals_.insert(g);
      if (reached) reached->insert(g);
      if (g->hasInitializer()) walkConst(g->getInitializer());
      return;
    }
    for (const llvm::Use& u : c->operands())
      if (auto* cc = dyn_cast<llvm::Constant>(u.get())) walkConst(cc);
  };
  for (llvm::Function* f : roots) addFn(f);
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& I : bb)
        for (const llvm::Use& u : I.operands())
          if (auto* c = dyn_cast<llvm::Constant>(u.get())) walkConst(c);
  }
  for (llvm::Function& f : m_)
    if (seen.count(&f)) out.push_back(&f);
  if (reached) reached->insert(seen.begin(), seen.end());
}

void ModuleLowering::layoutGlobals() {
  Addr next = layout::kFirstGlobal;
  std::map<std::string, int> nameCount;
  std::vector<std::pair<llvm::GlobalVariable*, std::string>> gvs;
  for (llvm::GlobalVariable& g : m_.globals()) {
    if (g.getName().starts_with("llvm.")) continue;
    if (g.hasSection() && g.getSection() == "llvm.metadata") continue;
    std::string name = g.getName().str();
    llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> dis;
    g.getDebugInfo(dis);
    for (auto* e : dis)
      if (auto* v = e->getVariable()) {
        if (!v->getName().empty()) name = v->getName().str();
        globalDIType_[&g] = v->getType();
        break;
      }
    nameCount[name]++;
    gvs.push_back({&g, name});
  }
  uint64_t tlsShared = 0;
  for (auto& [g, name] : gvs) {
    llvm::Type* t = g->getValueType();
    uint64_t size = t->isSized() ? dl_.getTypeAllocSize(t).getFixedValue() : 8;
    uint64_t align = std::max<uint64_t>(dl_.getPreferredAlign(g).value(), 1);
    if (g->isThreadLocal()) {
      // Private when every access goes through llvm.threadlocal.address and
      // that address is only used to access the copy (never stored, passed
      // or compared away): no other thread can reach it (ir.h, ThreadLocal).
      bool priv = true;
      for (const llvm::Use& u : g->uses()) {
        auto* call = dyn_cast<llvm::IntrinsicInst>(u.getUser());
        if (!call || call->getIntrinsicID() != llvm::Intrinsic::threadlocal_address ||
            FunctionLowering::escapes(call, 0))
          priv = false;
      }
      ThreadLocal v;
      v.name = nameCount[name] > 1 ? g->getName().str() : name;
      v.isPrivate = priv;
      uint64_t& top = priv ? p_.tlsPrivateSize : tlsShared;
      top = (top + align - 1) / align * align;
      v.offset = top;
      if (size > layout::kTlsStride / 2) {
        oversized_[g] = size;  // refused in fillInitialisers when a check uses it
        size = 1;
      }
      v.size = uint32_t(size);
      v.init.assign(size, 0);
      llvm::Type* et = t;
      while (auto* at = dyn_cast<llvm::ArrayType>(et)) et = at->getElementType();
      if (et != t && et->isSized()) v.elemSize = uint32_t(dl_.getTypeAllocSize(et).getFixedValue());
      top += std::max<uint64_t>(size, 1);
      tlsIndex_[g] = uint32_t(p_.threadLocals.size());
      p_.threadLocals.push_back(std::move(v));
      continue;
    }
    Global gl;
    gl.name = nameCount[name] > 1 ? g->getName().str() : name;  // static locals clash: use "f.x"
    if (size > kMaxGlobalBytes) {
      // Memory is materialised per byte: refuse (in fillInitialisers, at the
      // definition, when a check uses it) instead of allocating gigabytes.
      oversized_[g] = size;
      size = 1;
    }
    gl.size = uint32_t(size);
    gl.init.assign(size, 0);
    llvm::Type* et = t;
    while (auto* at = dyn_cast<llvm::ArrayType>(et)) et = at->getElementType();
    if (et != t && et->isSized()) gl.elemSize = uint32_t(dl_.getTypeAllocSize(et).getFixedValue());
    gl.addr = layout::placeObject(next, size, align);  // with a red zone after it
    globalIndex_[g] = uint32_t(p_.globals.size());
    p_.globals.push_back(std::move(gl));
  }
  // Thread-specific data (lower_sync.cpp, lowerThreadSpecific): a shared key
  // counter and kMaxKeys private 8-byte values per thread.
  static const char* const kKeyFunctions[] = {"pthread_key_create", "pthread_setspecific", "pthread_getspecific",
                                              "tss_create", "tss_set", "tss_get"};
  if (std::any_of(std::begin(kKeyFunctions), std::end(kKeyFunctions), [&](const char* n) { return m_.getFunction(n); })) {
    next = (next + 7) / 8 * 8;
    Global keys;
    keys.name = "thread-specific keys";
    keys.addr = next;
    keys.size = 4;
    keys.init.assign(4, 0);
    keysGlobal_ = uint32_t(p_.globals.size());
    p_.globals.push_back(std::move(keys));
    next += 8;
    ThreadLocal values;
    values.name = "thread-specific values";
    values.isPrivate = true;
    values.offset = (p_.tlsPrivateSize + 7) / 8 * 8;
    values.size = kMaxKeys * 8;
    values.init.assign(values.size, 0);
    values.elemSize = 8;
    p_.tlsPrivateSize = values.offset + values.size;
    keyValuesLocal_ = uint32_t(p_.threadLocals.size());
    p_.threadLocals.push_back(std::move(values));
  }
  p_.tlsPrivateSize = (p_.tlsPrivateSize + 15) / 16 * 16;  // private stack slots follow, 16-aligned
  if (tlsShared > layout::kTlsStride || p_.tlsPrivateSize > layout::kTlsStride)
    for (auto& [g, idx] : tlsIndex_) oversized_[g] = p_.threadLocals[idx].size;
}

void ModuleLowering::fillInitialisers() {
  for (const llvm::GlobalVariable& gv : m_.globals()) {  // module order: stable diagnostics
    const llvm::GlobalVariable* g = &gv;
    auto it = globalIndex_.find(g);
    auto tls = tlsIndex_.find(g);
    auto big = oversized_.find(g);
    if ((it == globalIndex_.end() && tls == tlsIndex_.end()) || (!g->hasInitializer() && big == oversized_.end()))
      continue;
    std::string& gname = tls != tlsIndex_.end() ? p_.threadLocals[tls->second].name : p_.globals[it->second].name;
    std::vector<uint8_t>& init = tls != tlsIndex_.end() ? p_.threadLocals[tls->second].init : p_.globals[it->second].init;
    std::string err, what = "initialiser of '" + gname + "': ";
    bool bad = false;
    if (big != oversized_.end()) {
      what = "global '" + gname + "' is too large: ";
      err = std::to_string(big->second) + " bytes; tsocheck supports globals of at most " +
            std::to_string(kMaxGlobalBytes >> 20) + " MiB";
      if (tls != tlsIndex_.end()) {
        what = "thread-local variable '" + gname + "' is too large: ";
        err = "tsocheck supports at most " + std::to_string(layout::kTlsStride >> 20) +
              " MiB of thread-local variables per thread";
      }
      bad = true;
    } else {
      bad = !writeConst(g->getInitializer(), init.data(), init.size(), err);
    }
    if (bad && usedGlobals_.count(g)) {
      errorOwner_ = g;
      // Only an error if some check can see the global; report it at the definition.
      SourceLoc l;
      llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> dis;
      g->getDebugInfo(dis);
      if (!dis.empty() && dis[0]->getVariable()) {
        l.file = p_.fileIndex(debugPath(dis[0]->getVariable()->getFilename(), dis[0]->getVariable()->getDirectory()));
        l.line = dis[0]->getVariable()->getLine();
        l.column = 1;
      }
      error(l, what + err);
      errorOwner_ = nullptr;
    }
  }
}

llvm::Function* ModuleLowering::makeMainHarness() {
  llvm::Function* main = m_.getFunction("main");
  if (!main || main->isDeclaration()) return nullptr;
  llvm::LLVMContext& ctx = m_.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::FunctionType* ft = main->getFunctionType();
  const bool noArgs = ft->getNumParams() == 0;
  const bool argcArgv = ft->getNumParams() == 2 && ft->getParamType(0)->isIntegerTy(32) &&
                        ft->getParamType(1)->isPointerTy();
  if (ft->isVarArg() || !(noArgs || argcArgv)) {
    error(locOfFunction(main), "main must be int main(void) or int main(int, char **) to be checked with --main");
    return nullptr;
  }
  auto* h = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                   llvm::GlobalValue::InternalLinkage, "main.harness", m_);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", h));
  if (auto* sp = main->getSubprogram()) b.SetCurrentDebugLocation(llvm::DILocation::get(ctx, sp->getLine(), 1, sp));
  std::vector<llvm::Value*> args;
  if (argcArgv) {
    // argv = {"prog", NULL}: what a program run without arguments gets.
    llvm::Constant* name = b.CreateGlobalString("prog", "main.argv0", 0, &m_);
    auto* arrTy = llvm::ArrayType::get(ptr, 2);
    auto* argv = new llvm::GlobalVariable(m_, arrTy, false, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantArray::get(arrTy, {name, llvm::ConstantPointerNull::get(
                                                                                   llvm::PointerType::get(ctx, 0))}),
                                          "main.argv");
    args = {llvm::ConstantInt::get(i32, 1), argv};
  }
  b.CreateCall(main, args);
  b.CreateRetVoid();
  harnessOf_ = main;
  return h;
}

void ModuleLowering::run() {
  std::vector<std::pair<llvm::Function*, std::string>> checks;
  findChecks(checks);
  if (opts_.mainHarness) {
    bool annotated = false;
    for (auto& c : checks) annotated = annotated || c.first->getName() == "main";
    if (!annotated && (harness_ = makeMainHarness())) checks.push_back({harness_, ""});
  }
  // Annotated in the source but not emitted: a static function nothing uses.
  for (const auto& [name, decl] : decls_) {
    bool emitted = false;
    for (auto& c : checks) emitted = emitted || c.first->getName() == name;
    if (!emitted) {
      errors_ = true;
      diag("error", decl.file, decl.line, decl.column,
           "check function '" + name + "' was not emitted by the compiler (a static function nothing calls): "
           "make it non-static or add __attribute__((used)) (the TSOCHECK macro does)");
    }
  }
  if (checks.empty()) {
    if (errors_) {
      res_.ok = false;
      return;
    }
    std::string file = m_.getSourceFileName();
    diag("error", file, 0, 0,
         "no check function found: annotate a `void NAME(void)` function with TSOCHECK "
         "(__attribute__((annotate(\"tsocheck\"))), see tsocheck.h)");
    res_.ok = false;
    return;
  }
  std::vector<llvm::Function*> roots;
  for (auto& [fn, text] : checks) {
    if (fn->isDeclaration()) {
      error(locOfFunction(fn), "check function '" + fn->getName().str() + "' has no body");
      continue;
    }
    if (!fn->getReturnType()->isVoidTy() || fn->arg_size() != 0 || fn->isVarArg()) {
      error(locOfFunction(fn), "check function '" + fn->getName().str() + "' must have the signature void " +
                                   fn->getName().str() + "(void)");
      continue;
    }
    roots.push_back(fn);
  }
  std::vector<llvm::Function*> funcs;
  collectReachable(roots, funcs);
  for (llvm::Function* f : funcs) {
    uint32_t idx = uint32_t(p_.functions.size());
    funcIndex_[f] = idx;
    Function fn;
    fn.name = f->getName().str();
    fn.numParams = uint32_t(f->arg_size());
    fn.numRegs = fn.numParams;
    fn.loc = locOfFunction(f);
    p_.functions.push_back(std::move(fn));
  }
  layoutGlobals();
  fillInitialisers();
  for (llvm::Function* f : funcs)
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& I : bb)
        if (auto* call = dyn_cast<llvm::CallInst>(&I))
          if (auto* callee = dyn_cast<llvm::Function>(call->getCalledOperand()->stripPointerCasts());
              callee && callee->isDeclaration()) {
            Ext k = classifyExternal(callee->getName());
            if (k == Ext::PthreadCreate || k == Ext::ThrdCreate) spawnsThreads_ = true;
            if (k == Ext::MutexDestroy) destroysMutexes_ = true;
          }
  for (llvm::Function* f : funcs) {
    errorOwner_ = f;
    FunctionLowering fl(*this, *f, funcIndex_[f]);
    fl.run();
    errorOwner_ = nullptr;
  }
  for (auto& [fn, text] : checks) {
    auto it = funcIndex_.find(fn);
    if (it == funcIndex_.end()) continue;
    CheckFunction cf;
    cf.name = fn == harness_ ? "main" : fn->getName().str();
    SourceLoc l = locOfFunction(fn);
    cf.file = l.file < p_.files.size() ? p_.files[l.file] : "";
    cf.line = l.line;
    cf.column = l.column;
    cf.annotation = text;
    if (!ownedErrors_.empty()) {
      std::unordered_set<const llvm::Value*> reached;
      std::vector<llvm::Function*> ignored;
      collectReachable({fn}, ignored, &reached);
      for (const auto& [owner, d] : ownedErrors_)
        if (reached.count(owner)) {
          cf.blockedBy = d;
          break;
        }
    }
    res_.module.checks.push_back(cf);
    res_.module.entryOf.push_back(it->second);
  }
  if (!res_.module.entryOf.empty()) p_.entry = res_.module.entryOf.front();
  res_.module.model = opts_.model;
  res_.module.loopBound = opts_.loopBound;
  res_.ok = !errors_ && ownedErrors_.empty() && !res_.module.checks.empty();
  res_.fileErrors = errors_;
}

}  // namespace tsocheck::frontend::lowering

namespace tsocheck::frontend {

void lowerModule(llvm::Module& m, const FrontendOptions& opts, const std::map<std::string, AnnotatedDecl>& decls,
                 FrontendResult& result) {
  lowering::ModuleLowering ml(m, opts, decls, result);
  ml.run();
}

bool modelledExternal(const std::string& name) {
  return name.rfind("llvm.", 0) == 0 || lowering::classifyExternal(name) != lowering::Ext::Unknown;
}

}  // namespace tsocheck::frontend
