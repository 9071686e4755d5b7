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

// Byte offset of an LSP position (UTF-16 character) in text; clamps to the
// line end / text end. nullopt when the line does not exist.
std::optional<size_t> offsetAt(const std::string& text, uint32_t line, uint32_t character);
// LSP {line, character} of a 1-based line and 1-based byte column.
nlohmann::json positionOf(const std::string& text, uint32_t line1, uint32_t column1);
// Range covering the non-blank text of a 1-based line from column1 to the line end.
nlohmann::json lineRange(const std::string& text, uint32_t line1, uint32_t column1);
// 1-based byte column of the first non-blank character of a 1-based line (1 when none).
uint32_t firstColumn(const std::string& text, uint32_t line1);

}  // namespace tsocheck::lsp
