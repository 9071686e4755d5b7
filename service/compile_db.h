// Compile flags for a file, found like clangd does: the nearest
// compile_commands.json in the file's directory or above. Parsed databases
// are kept by path and the hash of their text; as in Clang's tooling, only
// entries with the checked file's name are resolved through symbolic links.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tsocheck {

struct CompileFlags {
  std::string database;            // path of the compile_commands.json used ("" = none)
  std::vector<std::string> args;   // flags that matter for parsing: -I -D -U -std -include ...
  std::vector<std::string> warnings;  // databases or entries ignored (not a regular file, wrong types, ...)
};

// compile_commands.json files larger than this are ignored.
inline constexpr size_t kMaxCompileDatabaseBytes = size_t(64) << 20;

// Searches from `file`'s directory upward (or in `dir` when given).
// Warnings are also printed on stderr, once per process each.
CompileFlags compileFlagsFor(const std::string& file, const std::string& dir = "");
CompileFlags compileFlagsQuiet(const std::string& file, const std::string& dir = "");  // without printing

// A database's other C translation units (TU: file and its own flags), for
// a program spread over several files.
struct DatabaseUnit {
  std::string file;               // absolute
  std::vector<std::string> args;  // as CompileFlags::args
};
// The C files (".c") of `database` other than `except`, in its order, at
// most `cap` of them (*leftOut: how many more there are).
std::vector<DatabaseUnit> databaseUnits(const std::string& database, const std::string& except, size_t cap,
                                        size_t* leftOut);

// Splits a shell-style command line (quotes and backslashes).
std::vector<std::string> splitCommand(const std::string& cmd);

}  // namespace tsocheck
