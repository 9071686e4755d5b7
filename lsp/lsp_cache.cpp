#include "lsp/lsp_cache.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace tsocheck::lsp {

namespace {

struct Fnv {
  uint64_t h = 1469598103934665603ULL;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  }
  template <class T>
  void pod(const T& v) { bytes(&v, sizeof v); }
  void str(const std::string& s) {
    pod(s.size());
    bytes(s.data(), s.size());
  }
};

const std::string& at(const std::vector<std::string>& v, uint32_t i) {
  static const std::string empty;
  return i < v.size() ? v[i] : empty;
}

void hashLoc(Fnv& f, const Program& p, const SourceLoc& l) {
  f.str(at(p.files, l.file));
  f.pod(l.line);
  f.pod(l.column);
}

// Function index stored in an 8-byte little-endian word, if it is a code address.
std::optional<uint32_t> codeAddress(uint64_t v, size_t nFunctions) {
  if (v < layout::kFunctionBase || (v - layout::kFunctionBase) % 16 != 0) return std::nullopt;
  uint64_t idx = (v - layout::kFunctionBase) / 16;
  if (idx >= nFunctions) return std::nullopt;
  return uint32_t(idx);
}

}  // namespace

uint64_t reachableHash(const Program& p) {
  Fnv f;
  // Walk functions (calls, function addresses) and globals (GlobalAddr, and
  // addresses inside initial values) reachable from the entry.
  std::vector<uint32_t> work{p.entry};
  std::set<uint32_t> seen, globals;
  auto addGlobal = [&](size_t gi) {
    if (gi >= p.globals.size() || !globals.insert(uint32_t(gi)).second) return;
    const Global& g = p.globals[gi];
    for (size_t i = 0; i + 8 <= g.init.size(); i += 8) {
      uint64_t v = 0;
      for (int b = 7; b >= 0; --b) v = (v << 8) | g.init[i + b];
      if (auto fn = codeAddress(v, p.functions.size())) work.push_back(*fn);
      for (size_t k = 0; k < p.globals.size(); ++k)
        if (v >= p.globals[k].addr && v < p.globals[k].addr + std::max<uint32_t>(p.globals[k].size, 1))
          work.push_back(0x80000000u | uint32_t(k));
    }
  };
  while (!work.empty()) {
    uint32_t fi = work.back();
    work.pop_back();
    if (fi & 0x80000000u) {
      addGlobal(fi & 0x7fffffffu);
      continue;
    }
    if (fi >= p.functions.size() || !seen.insert(fi).second) continue;
    const Function& fn = p.functions[fi];
    for (const Instr& in : fn.code) {
      if (in.op == Op::Call || in.op == Op::FuncAddr) work.push_back(uint32_t(in.imm));
      if (in.op == Op::GlobalAddr) work.push_back(0x80000000u | uint32_t(in.imm));
      if (in.op == Op::Const) {
        if (auto c = codeAddress(uint64_t(in.imm), p.functions.size())) work.push_back(*c);
        for (size_t k = 0; k < p.globals.size(); ++k)
          if (uint64_t(in.imm) >= p.globals[k].addr && uint64_t(in.imm) < p.globals[k].addr + p.globals[k].size)
            work.push_back(0x80000000u | uint32_t(k));
      }
    }
  }
  for (uint32_t gi : globals) {
    const Global& g = p.globals[gi];
    f.pod(gi);
    f.str(g.name);
    f.pod(g.addr);
    f.pod(g.size);
    f.pod(g.elemSize);
    f.pod(g.init.size());
    f.bytes(g.init.data(), g.init.size());
  }
  // Hash in index order so the result does not depend on the walk; each
  // function's index matters too (function addresses are derived from it).
  for (uint32_t fi : seen) {
    const Function& fn = p.functions[fi];
    f.pod(fi);
    f.str(fn.name);
    f.pod(fn.numParams);
    f.pod(fn.numRegs);
    hashLoc(f, p, fn.loc);
    f.pod(fn.args.size());
    f.bytes(fn.args.data(), fn.args.size() * sizeof(Reg));
    for (const Instr& in : fn.code) {
      f.pod(in.op);
      f.pod(in.size);
      f.pod(in.sub);
      f.pod(in.a);
      f.pod(in.b);
      f.pod(in.c);
      f.pod(in.d);
      f.pod(in.imm);
      f.pod(in.imm2);
      f.pod(in.argBegin);
      f.pod(in.argCount);
      f.str(at(p.strings, in.name));
      hashLoc(f, p, in.loc);
    }
  }
  f.pod(p.entry);
  return f.h;
}

std::string checkKey(const CheckReport& rep, const Program& prog, const std::string& settings,
                     const std::string& version) {
  Fnv f;
  f.pod(reachableHash(prog));
  f.str(rep.function);
  f.str(rep.annotation);  // stateful, ranges, time limit, fences=, robustness: all change the outcome
  f.pod(rep.line);
  f.pod(rep.column);
  f.pod(rep.model);
  f.pod(rep.bufferBound.value_or(-1));
  f.pod(rep.preemptionBound.value_or(-1));
  f.pod(rep.loopBound);
  f.pod(rep.deadlocks);
  f.str(settings);
  f.str(version);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(f.h));
  return buf;
}

void ResultCache::setDir(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  dir_ = dir;
}

std::optional<nlohmann::json> ResultCache::get(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = mem_.find(key);
  if (it != mem_.end()) {
    ++hits_;
    return it->second;
  }
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(dir_ + "/" + key + ".json");
  if (!in) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;  // corrupt entry: re-check
  mem_[key] = j;
  ++hits_;
  return j;
}

void ResultCache::put(const std::string& key, const nlohmann::json& value) {
  std::lock_guard<std::mutex> l(mu_);
  mem_[key] = value;
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::string tmp = dir_ + "/" + key + ".json.tmp";
  {
    std::ofstream out(tmp);
    if (!out) return;
    out << value.dump();
  }
  std::filesystem::rename(tmp, dir_ + "/" + key + ".json", ec);
}

std::string cacheDirFor(const std::string& workspaceRoot) {
  std::error_code ec;
  if (!workspaceRoot.empty() && std::filesystem::is_directory(workspaceRoot, ec))
    return workspaceRoot + "/.tsocheck/cache";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tsocheck";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tsocheck";
  return "";
}

}  // namespace tsocheck::lsp
