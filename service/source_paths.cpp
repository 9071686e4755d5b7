#include "service/source_paths.h"

#include <filesystem>

namespace tsocheck {

bool sameFile(const std::string& file, const std::string& path) {
  if (file == path) return true;
  if (file.empty()) return false;
  if (file[0] != '/' && path.size() > file.size() &&
      path.compare(path.size() - file.size(), file.size(), file) == 0 && path[path.size() - file.size() - 1] == '/')
    return true;
  std::error_code e1, e2;
  auto ca = std::filesystem::weakly_canonical(file, e1), cb = std::filesystem::weakly_canonical(path, e2);
  return !e1 && !e2 && ca == cb;
}

}  // namespace tsocheck
