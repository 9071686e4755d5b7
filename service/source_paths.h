// File names as the program records them (debug info: maybe relative to the
// compile directory) against paths as a front end knows them.
#pragma once

#include <string>

namespace tsocheck {

// Whether a file name from the program (debug info: maybe relative to the
// compile directory) names `path`: equal, a relative suffix of it, or the
// same file once both are made canonical.
bool sameFile(const std::string& file, const std::string& path);

}  // namespace tsocheck
