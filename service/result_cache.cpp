#include "service/result_cache.h"
#include "service/report_json.h"
#include "service/json_text.h"
#include "service/safe_io.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
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
#include <new>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tsocheck {

namespace {

std::string hex(const unsigned char* b, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += digits[b[i] >> 4];
    out += digits[b[i] & 15];
  }
  return out;
}

// SHA-256 (OpenSSL's libcrypto) over a sequence of fields.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
  }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void bytes(const void* p, size_t n) {
    if (n) EVP_DigestUpdate(ctx_, p, n);
  }
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  void str(const std::string& s) {
    pod(uint64_t(s.size()));
    bytes(s.data(), s.size());
  }
  std::string hexDigest() {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_, d, &n);
    return hex(d, n);
  }

 private:
  EVP_MD_CTX* ctx_;
};

const std::string& at(const std::vector<std::string>& v, uint32_t i) {
  static const std::string empty;
  return i < v.size() ? v[i] : empty;
}

void hashLoc(Sha256& f, const Program& p, const SourceLoc& l) {
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

std::string reachableHash(const Program& p) {
  Sha256 f;
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
      if (in.op == Op::Call || in.op == Op::FuncAddr || in.op == Op::Spawn) work.push_back(uint32_t(in.imm));
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
      std::apply([&](const auto&... field) { (f.pod(field), ...); }, semanticFields(in));
      f.str(at(p.strings, in.name));
      hashLoc(f, p, in.loc);
    }
  }
  f.pod(p.entry);
  return f.hexDigest();
}

std::string checkKey(const CheckReport& rep, const Program& prog, const std::string& settings,
                     const std::string& version) {
  Sha256 f;
  f.str(reachableHash(prog));
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
  f.pod(rep.spuriousWakeups);
  f.pod(rep.nondetRange.first);
  f.pod(rep.nondetRange.second);
  f.str(settings);
  f.str(version);
  f.pod(kCheckJsonRevision);  // entries written before the check JSON gained fields are misses
  return f.hexDigest();
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

namespace {

constexpr char kEntryHeader[] = "tsocheck-cache 1 ";

std::string entryMac(const std::string& secret, const std::string& key, const std::string& text) {
  std::string msg = key;
  msg += '\n';
  msg += text;
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), secret.data(), int(secret.size()), reinterpret_cast<const unsigned char*>(msg.data()),
            msg.size(), d, &n))
    return "";
  return hex(d, n);
}

// The key file's contents if it is a regular file of the right size owned by
// this user and readable by no one else (opened without following a symlink).
std::optional<std::string> readKeyFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::string key(ResultCache::kMacKeyBytes, '\0');
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::getuid() &&
                  (st.st_mode & 077) == 0 && size_t(st.st_size) == key.size() &&
                  ::read(fd, key.data(), key.size()) == ssize_t(key.size());
  ::close(fd);
  if (!ok) return std::nullopt;
  return key;
}

// A new key file: random bytes into a fresh temporary (O_EXCL, mode 0600),
// linked to `path` only if nothing is there (link() never replaces a file:
// of two processes creating it at once, one key wins and both use it).
void createKeyFile(const std::string& path) {
  std::string key(ResultCache::kMacKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), int(key.size())) != 1) return;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // only ever a temporary of this process id
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool ok = ::write(fd, key.data(), key.size()) == ssize_t(key.size()) && ::fsync(fd) == 0;
  if (::close(fd) == 0 && ok) (void)::link(tmp.c_str(), path.c_str());
  ::unlink(tmp.c_str());
  OPENSSL_cleanse(key.data(), key.size());
}

}  // namespace

std::string ResultCache::keyFileFor(const std::string& dir) {
  return (std::filesystem::path(dir).parent_path() / "key").string();
}

std::optional<std::string> ResultCache::macKey(bool create) {
  if (macKey_) return macKey_;
  const std::string path = keyFileFor(dir_);
  macKey_ = readKeyFile(path);
  if (!macKey_ && create) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) createKeyFile(path);
    macKey_ = readKeyFile(path);
  }
  return macKey_;
}

void ResultCache::setDir(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  dir_ = dir;
  macKey_.reset();
}

std::optional<nlohmann::json> ResultCache::get(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = mem_.find(key);
  if (it != mem_.end()) {
    ++hits_;
    return it->second;
  }
  if (dir_.empty() || !keyOk(key) || !safeDir(dir_, false)) return std::nullopt;
  const std::optional<std::string> secret = macKey(false);
  if (!secret) return std::nullopt;
  // Only a regular file (no FIFO, no symlink), of bounded size, written by
  // this user's tsocheck for this key (the MAC), that parses and has the
  // right shape; anything else is a miss and the check runs.
  std::optional<std::string> file = readRegularFile(dir_ + "/" + key + ".json", kMaxEntryBytes, nullptr, true);
  if (!file || file->rfind(kEntryHeader, 0) != 0) return std::nullopt;
  const size_t eol = file->find('\n');
  if (eol == std::string::npos) return std::nullopt;
  const std::string mac = file->substr(sizeof kEntryHeader - 1, eol - (sizeof kEntryHeader - 1));
  const std::string text = file->substr(eol + 1);
  const std::string expected = entryMac(*secret, key, text);
  if (expected.empty() || mac.size() != expected.size() || CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) != 0)
    return std::nullopt;
  std::optional<nlohmann::json> j = parseJsonText(text);
  if (!j || !validCacheEntry(*j)) return std::nullopt;
  mem_[key] = *j;
  ++hits_;
  return j;
}

void ResultCache::put(const std::string& key, const nlohmann::json& value) {
  std::lock_guard<std::mutex> l(mu_);
  mem_[key] = value;
  if (dir_.empty() || !keyOk(key) || !safeDir(dir_, true)) return;
  const std::optional<std::string> secret = macKey(true);
  if (!secret) return;
  const std::string text = dumpJson(value);  // invalid UTF-8 becomes U+FFFD
  const std::string mac = entryMac(*secret, key, text);
  if (mac.empty()) return;
  const std::string data = kEntryHeader + mac + "\n" + text;
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
