// Hostile input to the language server's pieces: framing that
// must resynchronise without losing the next message, deeply nested JSON,
// invalid UTF-8, bogus settings and URIs.
#include <catch2/catch.hpp>

#include "service/json_text.h"
#include "lsp/lsp_protocol.h"
#include "lsp/lsp_settings.h"
#include "service/report_json.h"

using namespace tsocheck;
using namespace tsocheck::lsp;
using nlohmann::json;

namespace {

std::vector<Frame> drain(FrameReader& r, const std::string& data) {
  r.feed(data.data(), data.size());
  std::vector<Frame> out;
  while (auto f = r.next()) out.push_back(*f);
  return out;
}

std::vector<std::string> okBodies(const std::vector<Frame>& fs) {
  std::vector<std::string> out;
  for (const Frame& f : fs)
    if (f.ok) out.push_back(f.body);
  return out;
}

const std::string kNext = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"next\"}";


}  // namespace

TEST_CASE("framing: the message after a malformed frame is never lost", "[robustness]") {
  const std::string body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"first\"}";
  SECTION("short Content-Length") {
    FrameReader r;
    auto fs = drain(r, "Content-Length: 5\r\n\r\n" + body + frame(kNext));
    CHECK(okBodies(fs).back() == kNext);
  }
  SECTION("LF-only header lines are accepted") {
    FrameReader r;
    auto fs = drain(r, "Content-Length: " + std::to_string(body.size()) + "\n\n" + body + frame(kNext));
    CHECK(okBodies(fs) == std::vector<std::string>{body, kNext});
  }
  SECTION("a length longer than the message (within the cap)") {
    FrameReader r;
    auto fs = drain(r, "Content-Length: 100000\r\n\r\n" + body + frame(kNext));
    REQUIRE(!fs.empty());
    CHECK(!fs.front().ok);
    CHECK(okBodies(fs) == std::vector<std::string>{kNext});
  }
  SECTION("a length longer than the message, the next frame arriving byte by byte") {
    FrameReader r;
    std::vector<Frame> fs = drain(r, "Content-Length: 100000\r\n\r\n" + body);
    CHECK(fs.empty());
    std::string rest = frame(kNext);
    for (char c : rest) {
      auto more = drain(r, std::string(1, c));
      fs.insert(fs.end(), more.begin(), more.end());
    }
    CHECK(okBodies(fs) == std::vector<std::string>{kNext});
  }
  SECTION("an oversized length") {
    FrameReader r;
    auto fs = drain(r, "Content-Length: 99999999999999\r\n\r\n" + body + frame(kNext));
    CHECK(okBodies(fs) == std::vector<std::string>{kNext});
  }
  SECTION("junk between frames") {
    FrameReader r;
    auto fs = drain(r, frame(body) + "garbage {\"x\": 1}\r\n" + frame(kNext));
    CHECK(okBodies(fs) == std::vector<std::string>{body, kNext});
  }
  SECTION("a body mentioning Content-Length in a string is one message") {
    FrameReader r;
    const std::string tricky = "{\"text\":\"Content-Length: 5\\r\\n\\r\\n\"}";
    auto fs = drain(r, frame(tricky) + frame(kNext));
    CHECK(okBodies(fs) == std::vector<std::string>{tricky, kNext});
  }
}

TEST_CASE("deeply nested JSON is refused before parsing", "[robustness]") {
  const std::string deepId = "{\"jsonrpc\":\"2.0\",\"id\":" + std::string(50000, '[') + std::string(50000, ']') +
                             ",\"method\":\"x\"}";
  CHECK(jsonNestingExceeds(deepId));
  std::string why;
  CHECK(!parseJsonText(deepId, &why));
  CHECK(why.find("nested deeper") != std::string::npos);
  const std::string deepParams = "{\"method\":\"n\",\"params\":" + std::string(1000000, '{') + "}";
  CHECK(!parseJsonText(deepParams));
  // Brackets inside strings (escaped quotes too) do not count.
  const std::string flat = "{\"a\":\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  CHECK(!jsonNestingExceeds(flat));
  CHECK(parseJsonText(flat));
  CHECK(parseJsonText(std::string(200, '[') + std::string(200, ']')));
}

TEST_CASE("invalid UTF-8 in a result is dumped, never thrown", "[robustness]") {
  json j = {{"message", std::string("caf\xe9 \xff\xfe")}, {"file", std::string("\xff.c")}};
  CHECK_THROWS(j.dump());
  std::string s;
  REQUIRE_NOTHROW(s = dumpJson(j));
  CHECK(json::parse(s)["message"].get<std::string>().rfind("caf", 0) == 0);
  CHECK(uriToPath("file:///tmp/%FF.c") == "/tmp/\xff.c");
}

TEST_CASE("settings and URIs: bogus fenceStyle, remote file URIs", "[robustness]") {
  Settings s;
  REQUIRE(applySettings(s, {{"fenceStyle", "sync"}}).empty());  // what the editor had
  auto bad = applySettings(s, {{"fenceStyle", "bogus"}});
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("fenceStyle") != std::string::npos);
  CHECK(s.run.fenceStyle == "sync");
  CHECK(applySettings(s, {{"fenceStyle", "mfence"}}).empty());
  CHECK(s.run.fenceStyle == "mfence");
  CHECK(uriToPath("file://host/x.c").empty());
  CHECK(uriToPath("file://localhost/x.c") == "/x.c");
  CHECK(uriToPath("file:///x.c") == "/x.c");
}

TEST_CASE("settings: background checks have a default time limit and several workers where cores allow",
          "[robustness]") {
  Settings s;
  REQUIRE(s.run.timeLimit);
  CHECK(*s.run.timeLimit == kDefaultTimeLimitSeconds);
  CHECK(s.maxWorkers == defaultMaxWorkers());
  CHECK(defaultMaxWorkers() >= 1);
  CHECK(applySettings(s, {{"timeLimit", 0}}).empty());
  CHECK(!s.run.timeLimit);  // 0: no limit
  CHECK(applySettings(s, {{"timeLimit", nullptr}, {"maxWorkers", nullptr}}).empty());
  CHECK(s.run.timeLimit == kDefaultTimeLimitSeconds);  // null (an unset editor setting): the default
  CHECK(s.maxWorkers == defaultMaxWorkers());
  CHECK(applySettings(s, {{"timeLimit", -1}}).size() == 1);
}
