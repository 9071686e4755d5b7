// The language server (`tsocheck lsp`): LSP 3.17 over stdio.
#pragma once

#include <string>

namespace tsocheck::lsp {

// Serves until `exit` (0 after shutdown, 1 otherwise) or end of input (1).
int runServer(const std::string& version);

}  // namespace tsocheck::lsp
