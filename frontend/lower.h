// Internal: LLVM IR → engine IR. Only frontend/*.cpp include this; it keeps
// LLVM types out of frontend.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontend/frontend.h"

namespace llvm {
class Module;
}

namespace tsocheck::frontend {

// What the Clang AST says about an annotated function (exact name location).
struct AnnotatedDecl {
  std::string file;
  uint32_t line = 0, column = 0;
};

// Whether calls to the external function `name` are lowered without a
// definition (pthread, C11 threads, libc, verifier calls): no other
// translation unit is searched for it.
bool modelledExternal(const std::string& name);

// Runs mem2reg + SROA over every function (the only optimisations allowed).
void promoteLocals(llvm::Module& m);

// Lowers `m` into result.module; appends diagnostics; sets result.ok.
void lowerModule(llvm::Module& m, const FrontendOptions& opts,
                 const std::map<std::string, AnnotatedDecl>& decls, FrontendResult& result);

}  // namespace tsocheck::frontend
