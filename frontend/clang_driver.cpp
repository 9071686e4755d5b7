// Clang-facing half of the frontend: runs Clang's C frontend in this
// process, collects its diagnostics and the annotated check functions, runs
// mem2reg, and hands the LLVM module to the lowering (lower.h).
#include "frontend/in_process.h"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "frontend/lower.h"

#ifndef TSOCHECK_CLANG_RESOURCE_DIR
#define TSOCHECK_CLANG_RESOURCE_DIR ""
#endif
#ifndef TSOCHECK_INCLUDE_DIR
#define TSOCHECK_INCLUDE_DIR ""
#endif

namespace tsocheck::frontend {
namespace {

// Turns Clang's diagnostics into Diagnostic records.
class Collector : public clang::DiagnosticConsumer {
 public:
  explicit Collector(std::vector<Diagnostic>* out) : out_(out) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    Diagnostic d;
    switch (level) {
      case clang::DiagnosticsEngine::Note: d.severity = "note"; break;
      case clang::DiagnosticsEngine::Warning: d.severity = "warning"; break;
      case clang::DiagnosticsEngine::Error:
      case clang::DiagnosticsEngine::Fatal: d.severity = "error"; break;
      default: return;  // ignored, remarks
    }
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    d.message = msg.str().str();
    if (info.getID() == clang::diag::warn_atomic_op_has_invalid_memory_order && level <= clang::DiagnosticsEngine::Warning) {
      // A memory order an atomic operation does not allow. The argument
      // selects which: 0 the operation's only order, 1 a compare-exchange's
      // success order, 2 its failure order.
      if (info.getNumArgs() > 0 && info.getRawArg(0) == 2) {
        // A compare-exchange failure order of release or acq_rel is undefined;
        // Clang (like GCC) still emits the operation, with a weaker failure
        // order (Clang: relaxed), and that is what is checked.
        d.message += " (release and acq_rel are not failure orders); it is compiled as memory_order_relaxed, as Clang does";
      } else {
        // A load with a release order, a store with an acquire order:
        // Clang drops the operation from the IR (GCC makes it seq_cst), so
        // what would be checked is another program: an error at the argument.
        d.severity = "error";
      }
    }
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()));
      if (p.isValid()) {
        d.file = p.getFilename();
        d.line = p.getLine();
        d.column = p.getColumn();
      }
    }
    out_->push_back(std::move(d));
  }

 private:
  std::vector<Diagnostic>* out_;
};

// Records where each `annotate("tsocheck...")` function's name is.
class AnnotationFinder : public clang::ASTConsumer {
 public:
  AnnotationFinder(clang::SourceManager& sm, std::map<std::string, AnnotatedDecl>* out) : sm_(sm), out_(out) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group) {
      auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (!fd) continue;
      for (const auto* a : fd->specific_attrs<clang::AnnotateAttr>()) {
        llvm::StringRef text = a->getAnnotation();
        if (!text.starts_with("tsocheck")) continue;
        if (text.size() > 8 && !std::isspace(static_cast<unsigned char>(text[8]))) continue;  // "tsocheckfoo"
        clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getFileLoc(fd->getLocation()));
        if (!p.isValid()) continue;
        AnnotatedDecl ad;
        ad.file = p.getFilename();
        ad.line = p.getLine();
        ad.column = p.getColumn();
        auto& slot = (*out_)[fd->getName().str()];
        if (fd->isThisDeclarationADefinition() || slot.line == 0) slot = ad;
      }
    }
    return true;
  }

 private:
  clang::SourceManager& sm_;
  std::map<std::string, AnnotatedDecl>* out_;
};

// Records every block-level statement of every function body (where a fence
// can go as a new statement).
class StatementCollector : public clang::ASTConsumer {
 public:
  StatementCollector(clang::SourceManager& sm, const clang::LangOptions& lang, std::vector<StatementSpan>* out,
                     std::vector<std::string> noEdit)
      : sm_(sm), lang_(lang), out_(out), noEdit_(std::move(noEdit)) {
    for (std::string& d : noEdit_) d = normalised(d);
  }

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group)
      if (auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d))
        if (fd->doesThisDeclarationHaveABody() && fd->getBody()) visit(fd->getBody());
    return true;
  }

 private:
  void visit(const clang::Stmt* s) {
    if (!s) return;
    if (auto* block = llvm::dyn_cast<clang::CompoundStmt>(s))
      for (const clang::Stmt* child : block->body()) record(child);
    for (const clang::Stmt* child : s->children()) visit(child);
  }

  void record(const clang::Stmt* s) {
    if (!s || llvm::isa<clang::NullStmt>(s)) return;
    clang::SourceLocation begin = sm_.getExpansionRange(s->getBeginLoc()).getBegin();
    clang::SourceLocation end = sm_.getExpansionRange(s->getEndLoc()).getEnd();
    if (begin.isInvalid() || end.isInvalid()) return;
    // An expression, return, do-while, ... ends before its `;`; blocks and
    // declarations already include their last character.
    if (!llvm::isa<clang::CompoundStmt>(s) && !llvm::isa<clang::DeclStmt>(s)) {
      std::optional<clang::Token> next = clang::Lexer::findNextToken(end, sm_, lang_);
      if (next && next->is(clang::tok::semi)) end = next->getLocation();
    }
    clang::PresumedLoc b = sm_.getPresumedLoc(begin), e = sm_.getPresumedLoc(end);
    if (!b.isValid() || !e.isValid() || std::string(b.getFilename()) != e.getFilename()) return;
    StatementSpan span{b.getFilename(), b.getLine(), b.getColumn(), e.getLine(), e.getColumn()};
    span.system = sm_.isInSystemHeader(begin) || underNoEdit(span.file);
    out_->push_back(std::move(span));
  }

  // Absolute, without . and .. components.
  static std::string normalised(const std::string& p) {
    llvm::SmallString<256> s(p);
    llvm::sys::fs::make_absolute(s);
    llvm::sys::path::remove_dots(s, /*remove_dot_dot=*/true);
    return std::string(s.str());
  }

  bool underNoEdit(const std::string& file) {
    auto [it, fresh] = noEditFile_.try_emplace(file, false);
    if (fresh) {
      const std::string f = normalised(file);
      for (const std::string& d : noEdit_)
        if (f.size() > d.size() && f.compare(0, d.size(), d) == 0 && f[d.size()] == '/') it->second = true;
    }
    return it->second;
  }

  clang::SourceManager& sm_;
  const clang::LangOptions& lang_;
  std::vector<StatementSpan>* out_;
  std::vector<std::string> noEdit_;         // directories (normalised)
  std::map<std::string, bool> noEditFile_;  // file -> under one of them
};

// C99 `inline` definitions that are not externally visible (`inline int
// f(void) {...}` with no `extern` declaration) are only
// `available_externally` in C, which Clang does not emit at -O0: a call
// would reach an undefined function. This file is the whole program, so
// the inline body is the function: the definition is marked gnu_inline
// (which for a non-`extern` inline definition means "emit it") before IR
// generation sees it. Static inline and `extern inline` are unchanged.
// With other translation units linked in, two files may emit the same
// definition from one header: their names are recorded (`emitted`) and the
// IR linker keeps one (linkUnit).
class InlineDefinitions : public clang::ASTConsumer {
 public:
  explicit InlineDefinitions(std::set<std::string>* emitted) : emitted_(emitted) {}
  void Initialize(clang::ASTContext& ctx) override { ctx_ = &ctx; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group) {
      auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (!fd || !fd->doesThisDeclarationHaveABody() || !fd->isInlineSpecified()) continue;
      if (fd->getStorageClass() != clang::SC_None || fd->hasAttr<clang::GNUInlineAttr>()) continue;
      if (fd->isInlineDefinitionExternallyVisible()) continue;
      fd->addAttr(clang::GNUInlineAttr::CreateImplicit(*ctx_));
      emitted_->insert(fd->getName().str());
    }
    return true;
  }

 private:
  clang::ASTContext* ctx_ = nullptr;
  std::set<std::string>* emitted_;
};

// The C type each pointer parameter of a declared (not defined) function
// points to: its size and spelling, per function name. The library models
// that write through such a pointer (a thread id into a pthread_t) take the
// size the program declared, which need not be the C library's.
struct PointeeType {
  uint64_t bytes = 0;  // 0: not a pointer to a complete object type
  std::string name;
};
using DeclaredPointees = std::map<std::string, std::vector<PointeeType>>;

class PointeeRecorder : public clang::ASTConsumer {
 public:
  explicit PointeeRecorder(DeclaredPointees* out) : out_(out) {}
  void Initialize(clang::ASTContext& ctx) override { ctx_ = &ctx; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group) {
      auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (!fd || fd->doesThisDeclarationHaveABody() || !fd->getIdentifier()) continue;
      std::vector<PointeeType> params(fd->getNumParams());
      bool any = false;
      for (unsigned i = 0; i < fd->getNumParams(); ++i) {
        const clang::QualType t = fd->getParamDecl(i)->getType();
        if (!t->isPointerType()) continue;
        const clang::QualType pointee = t->getPointeeType();
        if (pointee->isIncompleteType() || pointee->isFunctionType() || !pointee->isConstantSizeType()) continue;
        params[i].bytes = uint64_t(ctx_->getTypeSizeInChars(pointee).getQuantity());
        params[i].name = pointee.getUnqualifiedType().getAsString();
        any = true;
      }
      if (any) (*out_)[fd->getName().str()] = std::move(params);
    }
    return true;
  }

 private:
  clang::ASTContext* ctx_ = nullptr;
  DeclaredPointees* out_;
};

// Hands the recorded pointee types to the lowering as parameter attributes
// of the module's function declarations (lowering.h, declaredObject).
void attachPointees(llvm::Module& m, const DeclaredPointees& pointees) {
  for (llvm::Function& f : m) {
    if (!f.isDeclaration()) continue;
    auto it = pointees.find(f.getName().str());
    if (it == pointees.end()) continue;
    for (unsigned i = 0; i < it->second.size() && i < f.arg_size(); ++i) {
      if (!it->second[i].bytes || !f.getArg(i)->getType()->isPointerTy()) continue;
      f.addParamAttr(i, llvm::Attribute::get(m.getContext(), "tsocheck-object-size",
                                             std::to_string(it->second[i].bytes)));
      f.addParamAttr(i, llvm::Attribute::get(m.getContext(), "tsocheck-object-type", it->second[i].name));
    }
  }
}

// Clang's IR generation plus the annotation finder on the same AST.
class Action : public clang::EmitLLVMOnlyAction {
 public:
  Action(llvm::LLVMContext* ctx, std::map<std::string, AnnotatedDecl>* decls, std::vector<StatementSpan>* stmts,
         const std::vector<std::string>* noEdit, std::set<std::string>* inlineEmitted, DeclaredPointees* pointees)
      : clang::EmitLLVMOnlyAction(ctx),
        decls_(decls),
        stmts_(stmts),
        noEdit_(noEdit),
        inline_(inlineEmitted),
        pointees_(pointees) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<InlineDefinitions>(inline_));  // before IR generation
    consumers.push_back(clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file));
    if (!consumers.back()) return nullptr;
    consumers.push_back(std::make_unique<AnnotationFinder>(ci.getSourceManager(), decls_));
    consumers.push_back(
        std::make_unique<StatementCollector>(ci.getSourceManager(), ci.getLangOpts(), stmts_, *noEdit_));
    consumers.push_back(std::make_unique<PointeeRecorder>(pointees_));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  std::map<std::string, AnnotatedDecl>* decls_;
  std::vector<StatementSpan>* stmts_;
  const std::vector<std::string>* noEdit_;
  std::set<std::string>* inline_;
  DeclaredPointees* pointees_;
};

bool hasErrors(const std::vector<Diagnostic>& ds) {
  for (const Diagnostic& d : ds)
    if (d.severity == "error") return true;
  return false;
}

// Files given in memory (unsaved buffers, edited copies): path -> contents.
using MemoryFiles = std::map<std::string, std::string>;

// What Clang gives for one translation unit.
struct Unit {
  std::unique_ptr<llvm::Module> module;  // null: it did not compile
  std::vector<Diagnostic> diagnostics;
  std::vector<StatementSpan> statements;
  std::map<std::string, AnnotatedDecl> decls;  // annotated functions (used for the checked file only)
  std::vector<std::string> headerStems;        // file names of the headers it includes, without ".h"
  std::set<std::string> inlineEmitted;         // C99 inline definitions emitted (InlineDefinitions)
};

// The driver arguments for `path` with the user's `userArgs` (the same for
// every translation unit of a program but for the user's part).
std::vector<std::string> driverArgs(const std::string& path, const std::vector<std::string>& userArgs,
                                    const std::string& resourceDir) {
  std::vector<std::string> args = {"clang"};
  if (!resourceDir.empty()) {
    args.push_back("-resource-dir");
    args.push_back(resourceDir);
  }
  if (std::string(TSOCHECK_INCLUDE_DIR).size()) {
    args.push_back("-I");
    args.push_back(TSOCHECK_INCLUDE_DIR);
  }
  // Reading an uninitialised local is a warning in every check's result
  // (before the user's arguments: -Wno-uninitialized turns it off).
  args.push_back("-Wuninitialized");
  // What C compilers before Clang 16 / GCC 14 accepted with a warning stays
  // accepted: test programs written for other checkers rely on it (implicit
  // declarations, int <-> pointer conversions). A call to an undeclared
  // function with no definition is still refused, at the call, by the lowering.
  for (const char* a : {"-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int",
                        "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
                        "-Wno-error=incompatible-function-pointer-types"})
    args.push_back(a);
  for (const std::string& a : userArgs) args.push_back(a);
  // After the user's arguments, so that they cannot be overridden: the
  // lowering relies on unoptimised IR (one access per C access), 64-bit
  // pointers and debug locations. No typo correction: on a 100,000-character
  // identifier it takes about a minute and only improves messages.
  // An atomic operation with a memory order its kind does not allow (a load
  // with memory_order_release, a store with memory_order_acquire) is
  // undefined, and Clang drops the operation from the IR (GCC makes it
  // seq_cst): checking what is left would check another program (a spin on
  // such a load would never be entered and be `verified`), so the Collector
  // makes it an error at the argument. A compare-exchange's invalid failure
  // order stays a warning: the operation is emitted.
  for (const char* a : {"-target", "x86_64-unknown-linux-gnu", "-O0", "-g", "-Xclang", "-disable-O0-optnone",
                        "-fno-discard-value-names", "-fno-spell-checking", "-Watomic-memory-ordering",
                        "-Wno-error=atomic-memory-ordering", "-c",
                        "-x", "c"})
    args.push_back(a);
  args.push_back(path);
  return args;
}

// Parses one translation unit and generates its LLVM IR in `ctx`.
Unit compileUnit(const std::string& path, const std::vector<std::string>& userArgs, const std::string& resourceDir,
                 const std::vector<std::string>& noEdit, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs,
                 llvm::LLVMContext& ctx) {
  Unit u;
  Collector collector(&u.diagnostics);
  const std::vector<std::string> args = driverArgs(path, userArgs, resourceDir);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto diags = llvm::makeIntrusiveRefCnt<clang::DiagnosticsEngine>(
      llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagOpts.get(), &collector, /*ShouldOwnClient=*/false);
  clang::CreateInvocationOptions cio;
  cio.Diags = diags;
  cio.VFS = fs;
  cio.RecoverOnError = false;
  std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, cio);
  if (!inv || hasErrors(u.diagnostics)) {
    if (!hasErrors(u.diagnostics))
      u.diagnostics.push_back(fileError(path, "could not create a compiler invocation for " + path));
    return u;
  }
  inv->getFrontendOpts().DisableFree = false;
  inv->getDiagnosticOpts().ShowCarets = false;  // also silences "N warnings generated." on stderr

  clang::CompilerInstance ci;
  ci.setInvocation(std::move(inv));
  ci.createDiagnostics(&collector, /*ShouldOwnClient=*/false);
  ci.createFileManager(fs);

  DeclaredPointees pointees;
  Action action(&ctx, &u.decls, &u.statements, &noEdit, &u.inlineEmitted, &pointees);
  const bool ok = ci.ExecuteAction(action);
  std::unique_ptr<llvm::Module> mod = action.takeModule();
  if (!ok || !mod || hasErrors(u.diagnostics)) {
    if (!hasErrors(u.diagnostics)) u.diagnostics.push_back(fileError(path, "compilation failed"));
    return u;
  }
  attachPointees(*mod, pointees);
  if (ci.hasSourceManager()) {
    const clang::SourceManager& sm = ci.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      llvm::StringRef name = llvm::sys::path::filename(it->first.getName());
      if (name.ends_with(".h")) u.headerStems.push_back(name.drop_back(2).str());
    }
  }
  u.module = std::move(mod);
  return u;
}

// External functions and globals `m` uses but does not define, except the
// ones the lowering models (pthread, libc, ...).
std::set<std::string> undefinedNames(const llvm::Module& m) {
  std::set<std::string> out;
  for (const llvm::GlobalValue& g : m.global_values())
    if (g.isDeclaration() && g.hasName() && !g.use_empty() && !modelledExternal(g.getName().str()))
      out.insert(g.getName().str());
  return out;
}

bool definesAny(const llvm::Module& m, const std::set<std::string>& names) {
  for (const std::string& n : names)
    if (const llvm::GlobalValue* g = m.getNamedValue(n); g && !g->isDeclaration() && !g->hasLocalLinkage())
      return true;
  return false;
}

// Links `unit` (the IR of `path`) into `into`. Its check annotations are
// dropped (the checks are the checked file's); its internal names that the
// program already has become NAME@FILE (the name users see in traces and
// messages), and C99 inline definitions emitted by both files are merged.
bool linkUnit(llvm::Module& into, std::unique_ptr<llvm::Module> unit, const std::set<std::string>& inlineEmitted,
              const std::string& path, std::vector<Diagnostic>& diagnostics) {
  if (llvm::GlobalVariable* ann = unit->getGlobalVariable("llvm.global.annotations")) ann->eraseFromParent();
  const std::string file = llvm::sys::path::filename(path).str();
  for (llvm::GlobalValue& g : unit->global_values()) {
    if (!g.hasName() || g.getName().starts_with("llvm.")) continue;
    if (g.hasInternalLinkage() && into.getNamedValue(g.getName())) g.setName(g.getName() + "@" + file);
    // A definition both files emit from one header (InlineDefinitions).
    if (!g.isDeclaration() && !g.hasLocalLinkage() && inlineEmitted.count(g.getName().str()))
      g.setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
  }
  std::string why;
  llvm::LLVMContext& ctx = into.getContext();
  auto oldHandler = ctx.getDiagnosticHandlerCallBack();
  void* oldContext = ctx.getDiagnosticContext();
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* di, void* out) {
        if (di->getSeverity() != llvm::DS_Error) return;
        llvm::raw_string_ostream os(*static_cast<std::string*>(out));
        llvm::DiagnosticPrinterRawOStream printer(os);
        di->print(printer);
      },
      &why);
  const bool failed = llvm::Linker::linkModules(into, std::move(unit));
  ctx.setDiagnosticHandlerCallBack(oldHandler, oldContext);
  if (failed)
    diagnostics.push_back(fileError(path, "cannot link " + path + " with the checked file: " +
                                              (why.empty() ? std::string("the IR linker failed") : why)));
  return !failed;
}

FrontendResult run(const std::string& path, const MemoryFiles* files, const FrontendOptions& opts) {
  FrontendResult res;
  res.module.model = opts.model;
  res.module.loopBound = opts.loopBound;

  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs = llvm::vfs::getRealFileSystem();
  if (files && !files->empty()) {
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(fs);
    auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    if (auto cwd = fs->getCurrentWorkingDirectory()) mem->setCurrentWorkingDirectory(*cwd);
    for (const auto& [file, text] : *files) mem->addFile(file, 0, llvm::MemoryBuffer::getMemBufferCopy(text, file));
    overlay->pushOverlay(mem);
    fs = overlay;
  }

  std::string resourceDir = opts.resourceDir.empty() ? std::string(TSOCHECK_CLANG_RESOURCE_DIR) : opts.resourceDir;
  // Where files the user does not edit live (StatementSpan::system), besides
  // what Clang finds through its system include directories.
  std::vector<std::string> noEdit = {"/usr/include"};
  if (!resourceDir.empty()) noEdit.push_back(resourceDir);
  if (std::string(TSOCHECK_INCLUDE_DIR).size()) noEdit.push_back(TSOCHECK_INCLUDE_DIR);

  llvm::LLVMContext ctx;
  Unit main = compileUnit(path, opts.clangArgs, resourceDir, noEdit, fs, ctx);
  res.diagnostics = std::move(main.diagnostics);
  if (!main.module) return res;
  std::unique_ptr<llvm::Module> mod = std::move(main.module);
  std::vector<StatementSpan> statements = std::move(main.statements);
  auto take = [&](Unit& u, const std::string& unitPath) {
    if (!linkUnit(*mod, std::move(u.module), u.inlineEmitted, unitPath, res.diagnostics)) return false;
    res.diagnostics.insert(res.diagnostics.end(), u.diagnostics.begin(), u.diagnostics.end());
    statements.insert(statements.end(), u.statements.begin(), u.statements.end());
    res.module.units.push_back(unitPath);
    return true;
  };
  // The files named with --with / with=: always part of the program.
  for (const TranslationUnit& tu : opts.with) {
    if (tu.path == path ||
        std::find(res.module.units.begin(), res.module.units.end(), tu.path) != res.module.units.end())
      continue;
    Unit u = compileUnit(tu.path, tu.clangArgs, resourceDir, noEdit, fs, ctx);
    if (!u.module) {
      res.diagnostics.insert(res.diagnostics.end(), u.diagnostics.begin(), u.diagnostics.end());
      return res;
    }
    if (!take(u, tu.path)) return res;
  }
  // The compile database's other files, while the program uses a name
  // nothing linked defines: files named like a header the checked file
  // includes first (queue.h -> queue.c), then in the database's order.
  std::set<std::string> missing = undefinedNames(*mod);
  if (!missing.empty() && !opts.candidates.empty()) {
    std::vector<const TranslationUnit*> order;
    for (int pass = 0; pass < 2; ++pass)
      for (const TranslationUnit& tu : opts.candidates) {
        const std::string stem = llvm::sys::path::stem(tu.path).str();
        const bool named = std::find(main.headerStems.begin(), main.headerStems.end(), stem) != main.headerStems.end();
        if (named == (pass == 0)) order.push_back(&tu);
      }
    // Each file is parsed at most once; one that defines nothing missing
    // yet is kept: a file linked later may use what it defines.
    std::vector<std::pair<Unit, std::string>> parsed;
    for (size_t next = 0; !missing.empty();) {
      size_t hit = 0;
      while (hit < parsed.size() && !definesAny(*parsed[hit].first.module, missing)) ++hit;
      if (hit == parsed.size()) {
        if (next == order.size()) break;
        const TranslationUnit& tu = *order[next++];
        if (tu.path == path ||
            std::find(res.module.units.begin(), res.module.units.end(), tu.path) != res.module.units.end())
          continue;
        res.module.searched.push_back(tu.path);
        Unit u = compileUnit(tu.path, tu.clangArgs, resourceDir, noEdit, fs, ctx);
        if (u.module) parsed.emplace_back(std::move(u), tu.path);  // a file that does not compile defines nothing
        continue;
      }
      auto [u, unitPath] = std::move(parsed[hit]);
      parsed.erase(parsed.begin() + long(hit));
      if (!take(u, unitPath)) return res;
      missing = undefinedNames(*mod);
    }
    res.module.searchLeftOut = opts.candidatesLeftOut;
  }
  if (hasErrors(res.diagnostics)) return res;
  promoteLocals(*mod);
  lowerModule(*mod, opts, main.decls, res);
  res.module.statements = std::move(statements);
  return res;
}

}  // namespace

void promoteLocals(llvm::Module& m) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::PromotePass());  // mem2reg only: shared accesses stay in program order
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

namespace {

// Clang recurses on the syntax tree: a very deep expression (200,000 terms)
// overflows the stack, and a crash must not take the language server down.
// The frontend therefore runs on its own thread with a large stack, inside
// LLVM's crash recovery, whose signal handlers are made to run on an
// alternate signal stack so that a stack overflow is recoverable too.
// (Its stack: kFrontendStackBytes, frontend/in_process.h.)

void enableCrashRecovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
      struct sigaction sa;
      if (sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
        sa.sa_flags |= SA_ONSTACK;
        sigaction(sig, &sa, nullptr);
      }
    }
  });
}

FrontendResult runGuarded(const std::string& path, const MemoryFiles* files, const FrontendOptions& opts) {
  enableCrashRecovery();
  FrontendResult res;
  std::vector<char> altStack(256 << 10);
  llvm::CrashRecoveryContext crc;
  const bool ok = crc.RunSafelyOnThread(
      [&] {
        stack_t ss{};
        ss.ss_sp = altStack.data();
        ss.ss_size = altStack.size();
        sigaltstack(&ss, nullptr);
        res = run(path, files, opts);
        stack_t off{};
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, nullptr);
      },
      unsigned(kFrontendStackBytes));
  if (!ok) {
    res = FrontendResult();
    res.diagnostics.push_back(fileError(
        path, "the compiler crashed on this file (for example on an extremely deep expression); it was not checked"));
  }
  return res;
}

}  // namespace

FrontendResult lowerInProcess(const std::string& path, const std::string* contents,
                              const std::map<std::string, std::string>& others, const FrontendOptions& opts) {
  if (!contents) return runGuarded(path, nullptr, opts);
  MemoryFiles files = others;
  files[path] = *contents;
  return runGuarded(path, &files, opts);
}

void lowerInThisProcess() { detail::setInProcessLowering(&lowerInProcess); }

}  // namespace tsocheck::frontend
