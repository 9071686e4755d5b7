// Hostile input to the service's readers of the disk: cache entries of the
// wrong shape or kind, tampered or planted entries, FIFOs and symlinks in the
// cache, and odd compile_commands.json files.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/builder.h"
#include "service/compile_db.h"
#include "service/json_text.h"
#include "service/report_json.h"
#include "service/result_cache.h"

using namespace tsocheck;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("tsocheck-cache-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST_CASE("the cache key tells a check with spurious wake-ups from one without") {
  ProgramBuilder pb("k.c");
  auto& f = pb.function("check");
  f.ret();
  pb.setEntry(f.index());
  const Program prog = pb.build();
  CheckReport with;
  with.function = "check";
  CheckReport without = with;
  without.spuriousWakeups = false;
  CHECK(checkKey(with, prog, "", "v") == checkKey(with, prog, "", "v"));
  CHECK(checkKey(with, prog, "", "v") != checkKey(without, prog, "", "v"));
}

TEST_CASE("the cache key tells programs apart by their memory orders alone") {
  // Under RC11 an acquire load and a seq_cst one, or two compare-exchanges
  // that differ in their failure order, can give different answers: a cached
  // "verified" must never serve the other program.
  auto build = [](MemOrder load, MemOrder fail) {
    ProgramBuilder pb("k.c");
    const uint32_t x = pb.global("x", 4);
    auto& f = pb.function("check");
    f.loadGlobal(x);
    f.setOrder(load);
    f.casGlobal(x, 0, 1);
    f.setOrder(MemOrder::SeqCst);
    f.setFailOrder(fail);
    f.ret();
    pb.setEntry(f.index());
    return pb.build();
  };
  CheckReport rep;
  rep.function = "check";
  const std::string base = checkKey(rep, build(MemOrder::SeqCst, MemOrder::SeqCst), "", "v");
  CHECK(base == checkKey(rep, build(MemOrder::SeqCst, MemOrder::SeqCst), "", "v"));
  CHECK(base != checkKey(rep, build(MemOrder::Acquire, MemOrder::SeqCst), "", "v"));
  CHECK(base != checkKey(rep, build(MemOrder::SeqCst, MemOrder::Acquire), "", "v"));
}

TEST_CASE("cache entries of the wrong shape are a miss", "[robustness]") {
  tsocheck::CheckReport rep;
  rep.file = "/w/a.c";
  rep.function = "f";
  json good = tsocheck::checkJson(rep);
  REQUIRE(validCacheEntry(good));
  for (auto [key, bad] : std::vector<std::pair<std::string, json>>{{"executions", "many"},
                                                                  {"status", 5},
                                                                  {"function", 7},
                                                                  {"robustness", {{"robust", "yes"}}},
                                                                  {"violation", {{"trace", 3}}},
                                                                  {"bounds", json::array()},
                                                                  {"fences", {{{"line", "x"}}}},
                                                                  {"limits", {1, 2}}}) {
    json j = good;
    j[key] = bad;
    INFO(key);
    CHECK(!validCacheEntry(j));
  }
  json missing = good;
  missing.erase("status");
  CHECK(!validCacheEntry(missing));
  CHECK(!validCacheEntry(json::array()));
  CHECK(!validCacheEntry(json::object()));
}

TEST_CASE("the disk cache: round trip, tampering, FIFOs, symlinks, size cap", "[robustness]") {
  fs::path root = tempDir("cache");
  const std::string dir = (root / "tsocheck" / "results").string();
  tsocheck::CheckReport rep;
  rep.file = "/w/a.c";
  rep.function = "f";
  rep.result.message = std::string("assert \xff failed");  // invalid UTF-8 is written, not thrown
  json entry = tsocheck::checkJson(rep);
  const std::string key = "00112233aabbccdd";
  {
    ResultCache c(dir);
    REQUIRE_NOTHROW(c.put(key, entry));
  }
  const fs::path file = fs::path(dir) / (key + ".json");
  REQUIRE(fs::is_regular_file(file));
  CHECK((fs::status(file).permissions() & fs::perms::others_read) == fs::perms::none);
  CHECK(ResultCache(dir).get(key).has_value());
  // The entry file: "tsocheck-cache 1 MAC" and the JSON text.
  auto parts = [&] {
    std::ifstream in(file);
    std::string head, text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t eol = text.find('\n');
    REQUIRE(eol != std::string::npos);
    head = text.substr(0, eol + 1);
    return std::pair<std::string, std::string>(head, text.substr(eol + 1));
  };
  const fs::path keyFile = ResultCache::keyFileFor(dir);
  SECTION("the key file is the user's alone") {
    REQUIRE(fs::is_regular_file(keyFile));
    CHECK(fs::file_size(keyFile) == ResultCache::kMacKeyBytes);
    CHECK((fs::status(keyFile).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  }
  SECTION("wrong field types") {
    auto [head, text] = parts();
    json j = json::parse(text);
    j["executions"] = "many";
    write(file, head + j.dump());
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("a forged entry (its status edited, the JSON still valid) is a miss") {
    auto [head, text] = parts();
    json j = json::parse(text);
    REQUIRE(validCacheEntry(j));
    j["status"] = j["status"] == "verified" ? "violation" : "verified";
    REQUIRE(validCacheEntry(j));
    write(file, head + dumpJson(j));
    CHECK(!ResultCache(dir).get(key).has_value());
    write(file, dumpJson(j));  // without the MAC line
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("an entry copied to another key is a miss") {
    const std::string other = "ffeeddccbbaa9988";
    fs::copy_file(file, fs::path(dir) / (other + ".json"));
    CHECK(!ResultCache(dir).get(other).has_value());
    CHECK(ResultCache(dir).get(key).has_value());
  }
  SECTION("entries made under another user key are misses") {
    fs::remove(keyFile);
    CHECK(!ResultCache(dir).get(key).has_value());  // no key: nothing read (and none made by reading)
    CHECK(!fs::exists(keyFile));
    ResultCache c(dir);
    c.put("abcdef", entry);  // makes a new key
    CHECK(fs::exists(keyFile));
    CHECK(ResultCache(dir).get("abcdef").has_value());
    CHECK(!ResultCache(dir).get(key).has_value());  // written under the old key
  }
  SECTION("a key file others can read, or a symlinked one, is not used") {
    fs::permissions(keyFile, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    CHECK(!ResultCache(dir).get(key).has_value());
    ResultCache c(dir);
    c.put("abcdef", entry);
    CHECK(!fs::exists(fs::path(dir) / "abcdef.json"));  // not written either
    fs::permissions(keyFile, fs::perms::owner_read | fs::perms::owner_write);
    CHECK(ResultCache(dir).get(key).has_value());
    const fs::path real = root / "real-key";
    fs::rename(keyFile, real);
    fs::create_symlink(real, keyFile);
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("not JSON, or nested too deeply") {
    write(file, "{\"status\":");
    CHECK(!ResultCache(dir).get(key).has_value());
    write(file, std::string(100000, '['));
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("a FIFO does not block") {
    fs::remove(file);
    REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    auto t0 = std::chrono::steady_clock::now();
    CHECK(!ResultCache(dir).get(key).has_value());
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  }
  SECTION("a symlinked entry (e.g. to /dev/stdin) is not followed") {
    fs::remove(file);
    fs::create_symlink("/dev/stdin", file);
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("an oversized entry is not read") {
    std::string big = dumpJson(entry);
    big.insert(big.size() - 1, ",\"pad\":\"" + std::string(ResultCache::kMaxEntryBytes, 'x') + "\"");
    write(file, big);
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("a symlinked cache directory is refused") {
    fs::path elsewhere = root / "elsewhere";
    fs::create_directories(elsewhere);
    fs::remove_all(dir);
    fs::create_directory_symlink(elsewhere, dir);
    ResultCache c(dir);
    c.put(key, entry);
    CHECK(fs::is_empty(elsewhere));
    write(elsewhere / (key + ".json"), dumpJson(entry));
    CHECK(!ResultCache(dir).get(key).has_value());
  }
  SECTION("a planted temporary symlink is never written through") {
    fs::path victim = root / "victim";
    write(victim, "keep");
    for (int i = 0; i < 4; ++i)
      fs::create_symlink(victim, fs::path(dir) / (key + ".json.tmp." + std::to_string(::getpid()) + "." + std::to_string(i)));
    ResultCache c(dir);
    for (int i = 0; i < 6; ++i) c.put(key, entry);
    std::ifstream in(victim);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(s == "keep");
  }
  fs::remove_all(root);
}

TEST_CASE("the cache lives outside the workspace", "[robustness]") {
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(cacheDirFor("/some/workspace") == "/tmp/xdg-test/tsocheck/results");
  if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("compile_commands.json entries name the file through linked directories", "[robustness]") {
  // Entries are resolved through links only when their file name is the
  // file's (as Clang's tooling matches them; a database lists a whole
  // project): a linked directory matches, a link under another name does not.
  fs::path d = tempDir("cdb-links");
  fs::create_directories(d / "src");
  write(d / "src" / "a.c", "int x;\n");
  fs::create_directory_symlink(d / "src", d / "via");
  fs::create_symlink(d / "src" / "a.c", d / "renamed.c");
  const std::string file = (d / "src" / "a.c").string();
  SECTION("through a linked directory") {
    write(d / "compile_commands.json",
          json::array({{{"directory", d.string()}, {"file", "src/other.c"}, {"command", "cc -DWRONG other.c"}},
                       {{"directory", d.string()}, {"file", "via/a.c"}, {"command", "cc -DVIA a.c"}}})
              .dump());
    const tsocheck::CompileFlags f = tsocheck::compileFlagsFor(file, d.string());
    CHECK(f.args == std::vector<std::string>{"-DVIA"});
  }
  SECTION("not through a link with another name") {
    write(d / "compile_commands.json",
          json::array({{{"directory", d.string()}, {"file", "renamed.c"}, {"command", "cc -DRENAMED renamed.c"}}}).dump());
    const tsocheck::CompileFlags f = tsocheck::compileFlagsFor(file, d.string());
    CHECK(f.database.empty());
    CHECK(f.args.empty());
  }
  SECTION("another file of the same name is not the file") {
    fs::create_directories(d / "elsewhere");
    write(d / "elsewhere" / "a.c", "int y;\n");
    write(d / "compile_commands.json",
          json::array({{{"directory", d.string()}, {"file", "elsewhere/a.c"}, {"command", "cc -DWRONG a.c"}}}).dump());
    const tsocheck::CompileFlags f = tsocheck::compileFlagsFor(file, d.string());
    CHECK(f.database.empty());
    CHECK(f.args.empty());
  }
  fs::remove_all(d);
}

TEST_CASE("compile_commands.json is read again when it changes", "[robustness]") {
  // (A database is kept parsed between checks while its text stays the same.)
  fs::path d = tempDir("cdb-change");
  write(d / "a.c", "int x;\n");
  const std::string file = (d / "a.c").string();
  auto db = [&](const std::string& define) {
    return json::array({{{"directory", d.string()}, {"file", "a.c"}, {"command", "cc " + define + " a.c"}}}).dump();
  };
  write(d / "compile_commands.json", db("-DONE"));
  CHECK(tsocheck::compileFlagsFor(file, d.string()).args == std::vector<std::string>{"-DONE"});
  CHECK(tsocheck::compileFlagsFor(file, d.string()).args == std::vector<std::string>{"-DONE"});
  write(d / "compile_commands.json", db("-DTWO"));  // same size, new contents
  CHECK(tsocheck::compileFlagsFor(file, d.string()).args == std::vector<std::string>{"-DTWO"});
  fs::remove(d / "compile_commands.json");
  write(d / "compile_commands.json", "[]");  // replaced by an empty one
  CHECK(tsocheck::compileFlagsFor(file, d.string()).database.empty());
  fs::remove_all(d);
}

TEST_CASE("compile_commands.json of the wrong shape or kind is ignored with a message", "[robustness]") {
  fs::path d = tempDir("cdb");
  write(d / "a.c", "int x;\n");
  const std::string file = (d / "a.c").string();
  SECTION("non-string directory") {
    write(d / "compile_commands.json",
          json::array({{{"directory", 5}, {"file", file}, {"command", "cc -DX=1 a.c"}}}).dump());
    tsocheck::CompileFlags f;
    REQUIRE_NOTHROW(f = tsocheck::compileFlagsFor(file));
    CHECK(f.database.empty());
    REQUIRE(!f.warnings.empty());
    CHECK(f.warnings[0].find("directory") != std::string::npos);
  }
  SECTION("wrong arguments/command types") {
    write(d / "compile_commands.json", json::array({{{"directory", d.string()}, {"file", file}, {"arguments", "cc"}},
                                                    {{"file", file}, {"command", 12}}})
                                           .dump());
    tsocheck::CompileFlags f;
    REQUIRE_NOTHROW(f = tsocheck::compileFlagsFor(file));
    CHECK(f.warnings.size() == 2);
  }
  SECTION("a FIFO does not block") {
    REQUIRE(::mkfifo((d / "compile_commands.json").c_str(), 0600) == 0);
    auto t0 = std::chrono::steady_clock::now();
    tsocheck::CompileFlags f = tsocheck::compileFlagsFor(file, d.string());
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    REQUIRE(f.warnings.size() == 1);
    CHECK(f.warnings[0].find("not a regular file") != std::string::npos);
  }
  SECTION("a symlink to /dev/stdin does not read the client's messages") {
    fs::create_symlink("/dev/stdin", d / "compile_commands.json");
    tsocheck::CompileFlags f = tsocheck::compileFlagsFor(file, d.string());
    CHECK(f.warnings.size() == 1);
  }
  SECTION("nested too deeply") {
    write(d / "compile_commands.json", std::string(300000, '['));
    tsocheck::CompileFlags f;
    REQUIRE_NOTHROW(f = tsocheck::compileFlagsFor(file, d.string()));
    CHECK(f.warnings.size() == 1);
  }
  fs::remove_all(d);
}

