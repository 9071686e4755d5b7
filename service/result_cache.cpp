#include "service/result_cache.h"
#include "service/report_json.h"
#include "jsonrpc/json_text.h"
#include "service/safe_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace tsocheck {

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
  // Thread-local variables: all of them (their initial values may hold
  // function and global addresses, like a global's).
  for (const ThreadLocal& v : p.threadLocals) {
    f.str(v.name);
    f.pod(v.offset);
    f.pod(v.size);
    f.pod(v.isPrivate);
    f.pod(v.elemSize);
    f.bytes(v.init.data(), v.init.size());
    for (size_t i = 0; i + 8 <= v.init.size(); i += 8) {
      uint64_t x = 0;
      for (int b = 7; b >= 0; --b) x = (x << 8) | v.init[i + b];
      if (auto fn = codeAddress(x, p.functions.size())) work.push_back(*fn);
      for (size_t k = 0; k < p.globals.size(); ++k)
        if (x >= p.globals[k].addr && x < p.globals[k].addr + std::max<uint32_t>(p.globals[k].size, 1))
          work.push_back(0x80000000u | uint32_t(k));
    }
  }
  f.pod(p.tlsPrivateSize);
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
  f.pod(rep.raceCheck);
  f.pod(rep.exitEndsProgram);
  f.pod(rep.nondetRange.first);
  f.pod(rep.nondetRange.second);
  f.str(settings);
  f.str(version);
  f.pod(kCheckJsonRevision);  // entries written before the check JSON gained fields are misses
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(f.h));
  return buf;
}

// ---- validation of entries read back --------------------------------------
// The check JSON's reader says what a complete entry is.
bool validCacheEntry(const nlohmann::json& j) { return completeCheckJson(j); }

// ---- the cache ---------------------------------------------------------------

namespace {

bool keyOk(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// dir (and its parent) exist as real directories owned by this user: a
// symlinked or foreign cache directory is refused (nothing is read or written).
bool safeDir(const std::string& dir, bool create) {
  namespace fs = std::filesystem;
  fs::path d(dir);
  std::error_code ec;
  if (create) fs::create_directories(d.parent_path().parent_path(), ec);  // e.g. ~/.cache
  for (const fs::path& p : {d.parent_path(), d}) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (!create || errno != ENOENT || ::mkdir(p.c_str(), 0700) != 0 || ::lstat(p.c_str(), &st) != 0) return false;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) return false;
  }
  return true;
}

}  // namespace

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
  if (dir_.empty() || !keyOk(key) || !safeDir(dir_, false)) return std::nullopt;
  // Only a regular file (no FIFO, no symlink), of bounded size, that parses
  // and has the right shape; anything else is a miss and the check runs.
  std::optional<std::string> text = readRegularFile(dir_ + "/" + key + ".json", kMaxEntryBytes, nullptr, true);
  if (!text) return std::nullopt;
  std::optional<nlohmann::json> j = parseJsonText(*text);
  if (!j || !validCacheEntry(*j)) return std::nullopt;
  mem_[key] = *j;
  ++hits_;
  return j;
}

void ResultCache::put(const std::string& key, const nlohmann::json& value) {
  std::lock_guard<std::mutex> l(mu_);
  mem_[key] = value;
  if (dir_.empty() || !keyOk(key) || !safeDir(dir_, true)) return;
  const std::string data = dumpJson(value);  // invalid UTF-8 becomes U+FFFD
  if (data.size() > kMaxEntryBytes) return;
  // A fresh temporary (O_EXCL: never an existing file, O_NOFOLLOW: never
  // through a symlink), then an atomic rename over the entry.
  static std::atomic<unsigned> serial{0};
  const std::string tmp = dir_ + "/" + key + ".json.tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(serial.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t off = 0;
  bool ok = true;
  while (off < data.size()) {
    ssize_t w = ::write(fd, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    off += size_t(w);
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), (dir_ + "/" + key + ".json").c_str()) != 0) ::unlink(tmp.c_str());
}

std::string cacheDirFor(const std::string& /*workspaceRoot*/) {
  // Outside the workspace on purpose: a repository cannot bring entries along.
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/tsocheck/results";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return std::string(h) + "/.cache/tsocheck/results";
  return "";
}

}  // namespace tsocheck
