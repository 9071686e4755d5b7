#include "frontend/wire.h"

#include <cstring>
#include <iterator>
#include <type_traits>

namespace tsocheck::frontend {

namespace {

constexpr uint32_t kMagic = 0x74736f33;  // "tso3": a different build or a stray writer is refused

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod(uint64_t(s.size()));
    out_.append(s);
  }
  template <class T>
  void podVec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    pod(uint64_t(v.size()));
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  template <class T, class F>
  void vec(const std::vector<T>& v, F each) {
    pod(uint64_t(v.size()));
    for (const T& x : v) each(x);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <class T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string str() {
    const uint64_t n = pod<uint64_t>();
    need(n);
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> podVec() {
    const uint64_t n = pod<uint64_t>();
    if (n > (in_.size() - at_) / sizeof(T)) throw WireError("truncated lowering message");
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), in_.data() + at_, n * sizeof(T));  // an empty vector's data() may be null
    at_ += n * sizeof(T);
    return v;
  }
  // A count of records of at least `minBytes` each (so a corrupt count
  // cannot make the reader reserve absurd memory).
  uint64_t count(size_t minBytes) {
    const uint64_t n = pod<uint64_t>();
    if (n > (in_.size() - at_) / minBytes) throw WireError("truncated lowering message");
    return n;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void need(uint64_t n) const {
    if (n > in_.size() - at_) throw WireError("truncated lowering message");
  }
  const std::string& in_;
  size_t at_ = 0;
};

void putOptions(Writer& w, const FrontendOptions& o) {
  w.pod(uint8_t(o.model));
  w.vec(o.clangArgs, [&](const std::string& s) { w.str(s); });
  w.str(o.resourceDir);
  w.pod(o.loopBound);
  w.pod(o.abortEnds);
  w.pod(o.spuriousWakeups);
  w.pod(o.mainHarness);
  for (const std::vector<TranslationUnit>* units : {&o.with, &o.candidates})
    w.vec(*units, [&](const TranslationUnit& u) {
      w.str(u.path);
      w.vec(u.clangArgs, [&](const std::string& s) { w.str(s); });
    });
  w.pod(uint64_t(o.candidatesLeftOut));
}

FrontendOptions getOptions(Reader& r) {
  FrontendOptions o;
  const uint8_t m = r.pod<uint8_t>();
  if (m >= std::size(kModels)) throw WireError("bad model in lowering message");
  o.model = Model(m);
  for (uint64_t n = r.count(8); n--;) o.clangArgs.push_back(r.str());
  o.resourceDir = r.str();
  o.loopBound = r.pod<uint32_t>();
  o.abortEnds = r.pod<bool>();
  o.spuriousWakeups = r.pod<bool>();
  o.mainHarness = r.pod<bool>();
  for (std::vector<TranslationUnit>* units : {&o.with, &o.candidates})
    for (uint64_t n = r.count(16); n--;) {
      TranslationUnit u;
      u.path = r.str();
      for (uint64_t k = r.count(8); k--;) u.clangArgs.push_back(r.str());
      units->push_back(std::move(u));
    }
  o.candidatesLeftOut = size_t(r.pod<uint64_t>());
  return o;
}

void putDiagnostic(Writer& w, const Diagnostic& d) {
  w.str(d.file);
  w.pod(d.line);
  w.pod(d.column);
  w.str(d.severity);
  w.str(d.message);
}

Diagnostic getDiagnostic(Reader& r) {
  Diagnostic d;
  d.file = r.str();
  d.line = r.pod<uint32_t>();
  d.column = r.pod<uint32_t>();
  d.severity = r.str();
  d.message = r.str();
  return d;
}

void putProgram(Writer& w, const Program& p) {
  w.vec(p.files, [&](const std::string& s) { w.str(s); });
  w.vec(p.strings, [&](const std::string& s) { w.str(s); });
  w.vec(p.functions, [&](const Function& f) {
    w.str(f.name);
    w.pod(f.numParams);
    w.pod(f.numRegs);
    w.podVec(f.code);
    w.podVec(f.args);
    w.pod(f.loc);
  });
  w.vec(p.globals, [&](const Global& g) {
    w.str(g.name);
    w.pod(g.addr);
    w.pod(g.size);
    w.podVec(g.init);
    w.pod(g.elemSize);
  });
  w.vec(p.threadLocals, [&](const ThreadLocal& v) {
    w.str(v.name);
    w.pod(v.offset);
    w.pod(v.size);
    w.pod(v.isPrivate);
    w.podVec(v.init);
    w.pod(v.elemSize);
  });
  w.pod(p.tlsPrivateSize);
  w.pod(p.entry);
}

Program getProgram(Reader& r) {
  Program p;
  p.files.clear();
  p.strings.clear();
  for (uint64_t n = r.count(8); n--;) p.files.push_back(r.str());
  for (uint64_t n = r.count(8); n--;) p.strings.push_back(r.str());
  for (uint64_t n = r.count(32); n--;) {
    Function f;
    f.name = r.str();
    f.numParams = r.pod<uint32_t>();
    f.numRegs = r.pod<uint32_t>();
    f.code = r.podVec<Instr>();
    f.args = r.podVec<Reg>();
    f.loc = r.pod<SourceLoc>();
    p.functions.push_back(std::move(f));
  }
  for (uint64_t n = r.count(32); n--;) {
    Global g;
    g.name = r.str();
    g.addr = r.pod<Addr>();
    g.size = r.pod<uint32_t>();
    g.init = r.podVec<uint8_t>();
    g.elemSize = r.pod<uint32_t>();
    p.globals.push_back(std::move(g));
  }
  for (uint64_t n = r.count(32); n--;) {
    ThreadLocal v;
    v.name = r.str();
    v.offset = r.pod<uint64_t>();
    v.size = r.pod<uint32_t>();
    v.isPrivate = r.pod<bool>();
    v.init = r.podVec<uint8_t>();
    v.elemSize = r.pod<uint32_t>();
    p.threadLocals.push_back(std::move(v));
  }
  p.tlsPrivateSize = r.pod<uint64_t>();
  p.entry = r.pod<uint32_t>();
  return p;
}

}  // namespace

std::string encodeRequest(const LoweringRequest& q) {
  Writer w;
  w.pod(kMagic);
  w.str(q.path);
  w.pod(q.hasContents);
  w.str(q.contents);
  w.pod(uint64_t(q.others.size()));
  for (const auto& [file, text] : q.others) {
    w.str(file);
    w.str(text);
  }
  putOptions(w, q.options);
  w.pod(q.memoryBytes);
  w.pod(q.secondsLeft);
  return w.take();
}

LoweringRequest decodeRequest(const std::string& bytes) {
  Reader r(bytes);
  if (r.pod<uint32_t>() != kMagic) throw WireError("not a lowering request");
  LoweringRequest q;
  q.path = r.str();
  q.hasContents = r.pod<bool>();
  q.contents = r.str();
  for (uint64_t n = r.count(16); n--;) {
    std::string file = r.str();
    q.others[file] = r.str();
  }
  q.options = getOptions(r);
  q.memoryBytes = r.pod<uint64_t>();
  q.secondsLeft = r.pod<double>();
  if (!(q.secondsLeft >= 0)) throw WireError("bad time in lowering request");
  if (!r.done()) throw WireError("trailing bytes after the lowering request");
  return q;
}

std::string encodeResult(const FrontendResult& res) {
  Writer w;
  w.pod(kMagic);
  w.pod(res.ok);
  w.pod(res.fileErrors);
  w.vec(res.diagnostics, [&](const Diagnostic& d) { putDiagnostic(w, d); });
  const LoweredModule& m = res.module;
  putProgram(w, m.program);
  w.vec(m.checks, [&](const CheckFunction& c) {
    w.str(c.name);
    w.str(c.file);
    w.pod(c.line);
    w.pod(c.column);
    w.str(c.annotation);
    w.pod(c.blockedBy.has_value());
    if (c.blockedBy) putDiagnostic(w, *c.blockedBy);
  });
  w.podVec(m.entryOf);
  w.pod(uint8_t(m.model));
  w.pod(m.loopBound);
  w.vec(m.statements, [&](const StatementSpan& s) {
    w.str(s.file);
    w.pod(s.beginLine);
    w.pod(s.beginColumn);
    w.pod(s.endLine);
    w.pod(s.endColumn);
    w.pod(s.system);
  });
  for (const std::vector<std::string>* files : {&m.units, &m.searched})
    w.vec(*files, [&](const std::string& f) { w.str(f); });
  w.pod(uint64_t(m.searchLeftOut));
  return w.take();
}

FrontendResult decodeResult(const std::string& bytes) {
  Reader r(bytes);
  if (r.pod<uint32_t>() != kMagic) throw WireError("not a lowering result");
  FrontendResult res;
  res.ok = r.pod<bool>();
  res.fileErrors = r.pod<bool>();
  for (uint64_t n = r.count(24); n--;) res.diagnostics.push_back(getDiagnostic(r));
  LoweredModule& m = res.module;
  m.program = getProgram(r);
  for (uint64_t n = r.count(32); n--;) {
    CheckFunction c;
    c.name = r.str();
    c.file = r.str();
    c.line = r.pod<uint32_t>();
    c.column = r.pod<uint32_t>();
    c.annotation = r.str();
    if (r.pod<bool>()) c.blockedBy = getDiagnostic(r);
    m.checks.push_back(std::move(c));
  }
  m.entryOf = r.podVec<uint32_t>();
  const uint8_t model = r.pod<uint8_t>();
  if (model >= std::size(kModels)) throw WireError("bad model in lowering result");
  m.model = Model(model);
  m.loopBound = r.pod<uint32_t>();
  for (uint64_t n = r.count(25); n--;) {
    StatementSpan s;
    s.file = r.str();
    s.beginLine = r.pod<uint32_t>();
    s.beginColumn = r.pod<uint32_t>();
    s.endLine = r.pod<uint32_t>();
    s.endColumn = r.pod<uint32_t>();
    s.system = r.pod<bool>();
    m.statements.push_back(std::move(s));
  }
  for (std::vector<std::string>* files : {&m.units, &m.searched})
    for (uint64_t n = r.count(8); n--;) files->push_back(r.str());
  m.searchLeftOut = size_t(r.pod<uint64_t>());
  if (!r.done()) throw WireError("trailing bytes after the lowering result");
  if (m.entryOf.size() != m.checks.size()) throw WireError("inconsistent lowering result");
  for (uint32_t e : m.entryOf)
    if (e >= m.program.functions.size()) throw WireError("inconsistent lowering result");
  return res;
}

}  // namespace tsocheck::frontend
