#include "service/compile_db.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <fstream>

#include <nlohmann/json.hpp>

#include "jsonrpc/json_text.h"
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

// Whether a database entry's file (absolute, lexically normal) is the target
// (canonical). Resolving symbolic links costs a system call per path
// component, and a database lists every file of a project, so an entry is
// resolved only when it could name the target through a link: its file name
// is the target's, or the name itself is a link.
bool namesTarget(const fs::path& entry, const fs::path& target) {
  if (entry == target) return true;
  std::error_code ec;
  if (entry.filename() != target.filename() && !fs::is_symlink(fs::symlink_status(entry, ec))) return false;
  return fs::weakly_canonical(entry, ec) == target;
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
  for (const fs::path& db : candidates) {
    if (!fs::exists(db, ec)) continue;
    // The database comes with the workspace: read only a regular file of sane
    // size, and ignore (with a warning) anything of the wrong shape.
    std::string why;
    std::optional<std::string> text = readRegularFile(db.string(), kMaxCompileDatabaseBytes, &why);
    if (!text) {
      flags.warnings.push_back(db.string() + " ignored: it " + why);
      continue;
    }
    std::optional<nlohmann::json> j = parseJsonText(*text, &why);
    if (!j || !j->is_array()) {
      flags.warnings.push_back(db.string() + " ignored: " + (j ? "it is not a JSON array" : why));
      continue;
    }
    size_t index = 0;
    for (const auto& entry : *j) {
      ++index;
      if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string()) continue;
      auto wrongType = [&](const char* key, bool ok) {
        if (!ok) flags.warnings.push_back(db.string() + ": entry " + std::to_string(index) + " ignored: \"" + key +
                                          "\" has the wrong type");
        return !ok;
      };
      if (wrongType("directory", !entry.contains("directory") || entry["directory"].is_string()) ||
          wrongType("arguments", !entry.contains("arguments") || entry["arguments"].is_array()) ||
          wrongType("command", !entry.contains("command") || entry["command"].is_string()))
        continue;
      std::string edir = entry.contains("directory") ? entry["directory"].get<std::string>() : std::string();
      if (!namesTarget(absoluteIn(edir, entry["file"].get<std::string>()), target)) continue;
      std::vector<std::string> argv;
      if (entry.contains("arguments")) {
        for (const auto& a : entry["arguments"])
          if (a.is_string()) argv.push_back(a.get<std::string>());
      } else if (entry.contains("command")) {
        argv = splitCommand(entry["command"].get<std::string>());
      }
      flags.database = db.string();
      flags.args = filterArgs(argv, edir);
      return flags;
    }
    // A database that does not list the file: keep looking upward like clangd
    // does for other files, but remember none was used.
  }
  return flags;
}

}  // namespace tsocheck
