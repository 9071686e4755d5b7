#include "service/compile_db.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "service/json_text.h"
#include "service/safe_io.h"

namespace fs = std::filesystem;

namespace tsocheck {

std::vector<std::string> splitCommand(const std::string& cmd) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (size_t i = 0; i < cmd.size(); ++i) {
    char c = cmd[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < cmd.size()) cur += cmd[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < cmd.size()) {
      cur += cmd[++i];
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

namespace {

std::string absoluteIn(const std::string& dir, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) path = fs::path(dir) / path;
  return path.lexically_normal().string();
}

// Keeps the flags that change how the file parses; paths become absolute.
std::vector<std::string> filterArgs(const std::vector<std::string>& argv, const std::string& dir) {
  static const char* withValue[] = {"-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-imacros"};
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool matched = false;
    for (const char* f : withValue) {
      std::string flag = f;
      if (a == flag && i + 1 < argv.size()) {
        std::string v = argv[++i];
        bool isPath = flag != "-D" && flag != "-U";
        out.push_back(flag);
        out.push_back(isPath ? absoluteIn(dir, v) : v);
        matched = true;
        break;
      }
      if (a.size() > flag.size() && a.compare(0, flag.size(), flag) == 0 && (flag == "-I" || flag == "-D" || flag == "-U")) {
        std::string v = a.substr(flag.size());
        out.push_back(flag == "-I" ? "-I" + absoluteIn(dir, v) : a);
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (a.rfind("-std=", 0) == 0 || a == "-pthread" || a.rfind("-fno-", 0) == 0 || a == "-funsigned-char" ||
        a == "-fsigned-char")
      out.push_back(a);
  }
  return out;
}

}  // namespace

namespace {

// Each warning once per process on stderr (the language server's log).
void warnOnce(const std::string& w) {
  static std::mutex mu;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> l(mu);
  if (said.size() < 1000 && said.insert(w).second) std::fprintf(stderr, "tsocheck: warning: %s\n", w.c_str());
}

}  // namespace

CompileFlags compileFlagsFor(const std::string& file, const std::string& dir) {
  CompileFlags flags = compileFlagsQuiet(file, dir);
  for (const std::string& w : flags.warnings) warnOnce(w);
  return flags;
}

namespace {

// A database read once: its entries in order, each either usable (its file
// as written with its file name, its directory, its command or arguments) or
// ignored with a warning. Only the file name is worked out when parsing; the
// absolute path and the argv only for entries with the checked file's name.
struct DatabaseEntry {
  std::string file, filename, dir, warning;  // file: as written
  std::string command;
  std::vector<std::string> arguments;  // when the entry has "arguments"
  bool hasArguments = false;
  std::string path() const { return absoluteIn(dir, file); }
  std::vector<std::string> argv() const { return hasArguments ? arguments : splitCommand(command); }
};
struct Database {
  std::string error;  // the whole database ignored: why
  std::vector<DatabaseEntry> entries;
};

std::shared_ptr<const Database> parseDatabase(const std::string& path, const std::string& text) {
  auto db = std::make_shared<Database>();
  std::string why;
  std::optional<nlohmann::json> j = parseJsonText(text, &why);
  if (!j || !j->is_array()) {
    db->error = path + " ignored: " + (j ? "it is not a JSON array" : why);
    return db;
  }
  size_t index = 0;
  for (const auto& entry : *j) {
    ++index;
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string()) continue;
    DatabaseEntry e;
    for (const auto& [key, ok] : {std::pair<const char*, bool>{"directory", !entry.contains("directory") ||
                                                                             entry["directory"].is_string()},
                                  {"arguments", !entry.contains("arguments") || entry["arguments"].is_array()},
                                  {"command", !entry.contains("command") || entry["command"].is_string()}})
      if (!ok && e.warning.empty())
        e.warning = path + ": entry " + std::to_string(index) + " ignored: \"" + key + "\" has the wrong type";
    if (e.warning.empty()) {
      e.dir = entry.contains("directory") ? entry["directory"].get<std::string>() : std::string();
      e.file = entry["file"].get<std::string>();
      e.filename = e.file.substr(e.file.find_last_of('/') + 1);  // (npos + 1 = 0)
      if (e.filename.empty() || e.filename == "." || e.filename == "..")
        e.filename = fs::path(e.path()).filename().string();
      if (entry.contains("arguments")) {
        e.hasArguments = true;
        for (const auto& a : entry["arguments"])
          if (a.is_string()) e.arguments.push_back(a.get<std::string>());
      } else if (entry.contains("command")) {
        e.command = entry["command"].get<std::string>();
      }
    }
    db->entries.push_back(std::move(e));
  }
  return db;
}

// The database at `path`, parsed. Databases already parsed are kept by path
// and the hash of their text: a language server checks the files of one
// project again and again, and a project's database can list thousands of
// files (reading and hashing its text costs a small part of parsing it).
std::shared_ptr<const Database> database(const std::string& path) {
  // The database comes with the workspace: read only a regular file of sane
  // size, and ignore (with a warning) anything of the wrong shape.
  std::string why;
  std::optional<std::string> text = readRegularFile(path, kMaxCompileDatabaseBytes, &why);
  if (!text) {
    auto db = std::make_shared<Database>();
    db->error = path + " ignored: it " + why;
    return db;
  }
  struct Kept {
    size_t size, hash;
    std::shared_ptr<const Database> db;
  };
  static std::mutex mu;
  static std::map<std::string, Kept> kept;
  const size_t hash = std::hash<std::string>()(*text);
  {
    std::lock_guard<std::mutex> l(mu);
    auto it = kept.find(path);
    if (it != kept.end() && it->second.size == text->size() && it->second.hash == hash) return it->second.db;
  }
  std::shared_ptr<const Database> db = parseDatabase(path, *text);
  std::lock_guard<std::mutex> l(mu);
  if (kept.size() >= 16) kept.clear();
  kept[path] = Kept{text->size(), hash, db};
  return db;
}

}  // namespace

CompileFlags compileFlagsQuiet(const std::string& file, const std::string& dir) {
  CompileFlags flags;
  std::error_code ec;
  fs::path target = fs::weakly_canonical(fs::absolute(file, ec), ec);
  std::vector<fs::path> candidates;
  if (!dir.empty()) {
    candidates.push_back(fs::path(dir) / "compile_commands.json");
  } else {
    for (fs::path d = target.parent_path(); !d.empty(); d = d.parent_path()) {
      candidates.push_back(d / "compile_commands.json");
      candidates.push_back(d / "build" / "compile_commands.json");
      if (d == d.root_path()) break;
    }
  }
  const std::string targetName = target.filename().string();
  for (const fs::path& path : candidates) {
    if (!fs::exists(path, ec)) continue;
    const std::shared_ptr<const Database> db = database(path.string());
    if (!db->error.empty()) {
      flags.warnings.push_back(db->error);
      continue;
    }
    // The first entry that lists the file by its path or through linked
    // directories. Like Clang's tooling (which clangd uses), only entries of
    // the same file name are resolved: resolving every entry would cost a
    // system call per entry on every check, and a database can list
    // thousands of files.
    const std::vector<DatabaseEntry>& entries = db->entries;
    size_t found = entries.size();
    for (size_t i = 0; i < entries.size() && found == entries.size(); ++i)
      if (entries[i].warning.empty() && entries[i].filename == targetName) {
        const std::string file = entries[i].path();
        if (file == target.string() || fs::weakly_canonical(file, ec) == target) found = i;
      }
    for (size_t i = 0; i < std::min(found + 1, entries.size()); ++i)
      if (!entries[i].warning.empty()) flags.warnings.push_back(entries[i].warning);
    if (found < entries.size()) {
      flags.database = path.string();
      flags.args = filterArgs(entries[found].argv(), entries[found].dir);
      return flags;
    }
    // A database that does not list the file: keep looking upward like clangd
    // does for other files, but remember none was used.
  }
  return flags;
}

std::vector<DatabaseUnit> databaseUnits(const std::string& database, const std::string& except, size_t cap,
                                        size_t* leftOut) {
  std::vector<DatabaseUnit> out;
  *leftOut = 0;
  const std::shared_ptr<const Database> db = tsocheck::database(database);
  if (!db->error.empty()) return out;
  std::error_code ec;
  const fs::path skip = fs::weakly_canonical(fs::absolute(except, ec), ec);
  std::set<std::string> seen;
  for (const DatabaseEntry& e : db->entries) {
    if (!e.warning.empty() || e.filename.size() < 3 || e.filename.compare(e.filename.size() - 2, 2, ".c") != 0)
      continue;
    const std::string file = e.path();
    if (file == skip.string() || !seen.insert(file).second) continue;
    if (out.size() == cap) {
      ++*leftOut;
      continue;
    }
    out.push_back({file, filterArgs(e.argv(), e.dir)});
  }
  return out;
}

}  // namespace tsocheck
