// LSP pieces above JSON-RPC (jsonrpc/framing.h, whose names this namespace
// uses): file URIs and UTF-16 positions (LSP's default position encoding).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "jsonrpc/framing.h"

namespace tsocheck::lsp {

// The language server speaks JSON-RPC: its error codes and framing by their short names.
using namespace jsonrpc;


// file:///a%20b/c.c <-> /a b/c.c ("" for URIs that are not file URIs).
std::string uriToPath(const std::string& uri);
std::string pathToUri(const std::string& path);
// Every byte but letters, digits, "-_.~" and those in `keep` as %XX (a
// command URI's JSON arguments: percentEncode(args.dump())).
std::string percentEncode(const std::string& text, const char* keep = "");

// Byte offset of an LSP position (UTF-16 character) in text; clamps to the
// line end / text end. nullopt when the line does not exist.
std::optional<size_t> offsetAt(const std::string& text, uint32_t line, uint32_t character);
// Byte offset of UTF-16 character `character` in the line text[begin, end)
// (clamped to end).
size_t offsetInLine(const std::string& text, size_t begin, size_t end, uint32_t character);
// LSP {line, character} of a 1-based line and 1-based byte column.
nlohmann::json positionOf(const std::string& text, uint32_t line1, uint32_t column1);
// Range covering the non-blank text of a 1-based line from column1 to the line end.
nlohmann::json lineRange(const std::string& text, uint32_t line1, uint32_t column1);
// 1-based byte column of the first non-blank character of a 1-based line (1 when none).
uint32_t firstColumn(const std::string& text, uint32_t line1);

// ---- The messages the server reads, typed (clangd's Protocol.h) -----------
// fromJson fills the struct from a request's or notification's params, or
// returns false with *error naming the first bad member by its path
// ("textDocument.uri must be a string"): the server answers InvalidParams
// (requests) or logs it (notifications) and never reads raw JSON itself.

struct Position {
  uint32_t line = 0, character = 0;  // 0-based; character in UTF-16 units
};
struct Range {
  Position start, end;
};

struct InitializeParams {
  std::string rootPath;             // rootUri as a path, else rootPath ("" = none)
  bool workDoneProgress = false;    // capabilities.window.workDoneProgress
  bool codeLensRefresh = false;     // capabilities.workspace.codeLens.refreshSupport
  bool documentChanges = false;     // capabilities.workspace.workspaceEdit.documentChanges
  bool disabledActions = false;     // capabilities.textDocument.codeAction.disabledSupport
  nlohmann::json initializationOptions = nlohmann::json::object();
};
struct DidOpenParams {
  std::string uri, text;
  int64_t version = 0;
};
struct DidChangeParams {
  std::string uri;
  int64_t version = 0;
  nlohmann::json contentChanges;  // an array (DocumentStore::change reads the entries)
};
struct DidSaveParams {
  std::string uri;
  std::optional<std::string> text;
};
struct DocumentParams {  // didClose, codeLens
  std::string uri;
};
struct CodeActionParams {
  std::string uri;
  Range range;
  nlohmann::json rangeJson;  // as sent (fenceActions compares ranges)
};
struct HoverParams {
  std::string uri;
  Position position;
};
struct TraceParams {  // tsocheck/trace
  std::string uri, function;
};
struct PictureParams {  // tsocheck/tracePicture: {textDocument: {uri}, function}
  std::string uri, function;
};
struct ExecuteCommandParams {
  std::string command;
  nlohmann::json arguments = nlohmann::json::array();
};
struct CancelParams {
  nlohmann::json id;  // a number or a string
};
struct ConfigurationParams {  // workspace/didChangeConfiguration
  nlohmann::json settings = nlohmann::json::object();
};

bool fromJson(const nlohmann::json& j, InitializeParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, DidOpenParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, DidChangeParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, DidSaveParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, DocumentParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, CodeActionParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, HoverParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, TraceParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, PictureParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, ExecuteCommandParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, CancelParams& out, std::string* error);
bool fromJson(const nlohmann::json& j, ConfigurationParams& out, std::string* error);

}  // namespace tsocheck::lsp
